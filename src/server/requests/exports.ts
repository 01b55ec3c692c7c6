/**
 * `chorus/exportWaivers`: the last run's exclusions (points proven unreachable or waived) for the tool that signs
 * off, by the engine's exports and its output rule. A file CHORUS did not write is never replaced without the
 * user's consent: the rule's other refusals (a link, a folder, an input of the run) hold even then.
 */
import { dirname } from 'node:path';
import {
  checkOutputTarget,
  coberturaWithoutExcluded,
  DEFAULT_INSTANCE,
  excludedPoints,
  lcovWithoutExcluded,
  toImcTcl,
  toUrgEl,
  toVlt,
  writeOutput,
  type OutputKind,
  type OutputTarget,
} from '../../engine';
import {
  ChorusError,
  type CoveragePoint,
  type ExportWaiversParams,
  type ExportWaiversResult,
  type Hole,
  type WaiverExportFormat,
} from '../../protocol';
import pkg from '../../../package.json';
import { folderOf } from '../design';
import { uriToPath } from '../uris';
import type { RequestContext } from './context';

/** The CLI option each format is, for the output rule's messages. */
const OPTION: Record<WaiverExportFormat, string> = {
  vlt: '--vlt',
  urgEl: '--urg-el',
  imcTcl: '--imc-tcl',
  lcov: '--lcov',
  cobertura: '--cobertura',
};

export async function exportWaivers(ctx: RequestContext, p: ExportWaiversParams): Promise<ExportWaiversResult> {
  const document = uriToPath(p.uri);
  const last = ctx.results.get(document);
  if (!last)
    throw new ChorusError('bad_input', 'No run for this file yet: run "Generate high-coverage stimulus" first.');
  const file = uriToPath(p.target);
  const { points, result } = last;
  const target: OutputTarget = {
    path: file,
    option: OPTION[p.format],
    kind: p.format satisfies OutputKind,
    force: true,
    // The run's sources, its regression and its waiver file are never replaced, not even with consent.
    inputs: [...last.files, ...(result.regression?.files ?? []), ...(result.waivers ? [result.waivers.file] : [])],
  };
  // The rule's refusals that consent does not lift come as errors; the one it lifts as `needsConsent`.
  await checkOutputTarget(target);
  if (!p.force) {
    const refused = await checkOutputTarget({ ...target, force: false }).then(
      () => undefined,
      (err: unknown) => err,
    );
    if (refused instanceof ChorusError) return { status: 'needsConsent', file, message: refused.message };
    if (refused) throw refused;
  }
  const base = folderOf(document, ctx.folders()) ?? dirname(document);
  const text = exportText(p, points, result.holes, base);
  await writeOutput({ ...target, force: Boolean(p.force) }, text);
  return { status: 'written', file, excluded: excludedPoints(points, result.holes).size };
}

function exportText(p: ExportWaiversParams, points: CoveragePoint[], holes: Hole[], base: string): string {
  const place = { dutPath: p.dutPath ?? 'tb.dut', dutInstance: DEFAULT_INSTANCE };
  switch (p.format) {
    case 'vlt':
      return toVlt(points, holes);
    case 'urgEl':
      return toUrgEl(points, holes, place);
    case 'imcTcl':
      return toImcTcl(points, holes, place);
    case 'lcov':
      return lcovWithoutExcluded(points, holes);
    case 'cobertura':
      // File names relative to the workspace folder: the repository root, as CI tools expect.
      return coberturaWithoutExcluded(points, holes, { base, version: pkg.version, timestamp: Date.now() });
  }
}
