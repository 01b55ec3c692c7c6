/** `chorus/coverage` and `chorus/exportLcov`: the last result the server keeps for a document. */
import { lcov } from '../../engine';
import {
  ChorusError,
  type CoverageParams,
  type CoverageResult,
  type ExportLcovParams,
  type ExportLcovResult,
} from '../../protocol';
import { uriToPath } from '../uris';
import type { RequestContext } from './context';

export function coverage(ctx: RequestContext, p: CoverageParams): CoverageResult {
  const path = uriToPath(p.uri);
  const last = ctx.results.get(path);
  return { result: last?.result ?? null, lines: ctx.results.lines(path) };
}

export function exportLcov(ctx: RequestContext, p: ExportLcovParams): ExportLcovResult {
  const last = ctx.results.get(uriToPath(p.uri));
  if (!last)
    throw new ChorusError('bad_input', 'No coverage for this file yet: run "Generate high-coverage stimulus" first.');
  return { lcov: lcov(last.points) };
}
