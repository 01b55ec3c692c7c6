/** Turns a round's outcome into the follow-up bullets the model was trained on, and picks the next instruction. */
import { basename } from 'node:path';
import type { CoverageReport, Diagnostic, Targets } from '../../protocol';
import { formatSummary, unmetTargets } from '../targets';
import { holesForModel } from '../evaluate';
import type { Bullets } from './prompt';

const LOG_LIMIT = 3000;

/** A file's name in text for the model; the run's `displayName`, by default the base name. */
type FileName = (file: string) => string;

/** How much of the uncovered list and of a log goes into the feedback; less when the context is short. */
export interface FeedbackDetail {
  holeLines: number;
  logChars: number;
}

export const FULL_DETAIL: FeedbackDetail = { holeLines: 40, logChars: LOG_LIMIT };

export function diagnosticsLog(diags: Diagnostic[], output = '', name: FileName = basename, limit = LOG_LIMIT): string {
  const lines = diags.map(
    (d) => `${name(d.file)}${d.line ? `:${d.line}` : ''}${d.column ? `:${d.column}` : ''}: ${d.severity}: ${d.message}`,
  );
  let text = lines.join('\n');
  if (!text && output) text = output;
  if (text.length > limit) text = `${text.slice(0, limit)}\n… (${text.length - limit} more characters left out)`;
  return text || '(no log)';
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n');
}

export function edaBullets(
  report: CoverageReport,
  targets: Targets,
  name: FileName = basename,
  detail: FeedbackDetail = FULL_DETAIL,
): Bullets {
  const log = (diags: Diagnostic[]) => diagnosticsLog(diags, '', name, detail.logChars);
  switch (report.status) {
    case 'ok': {
      const unmet = unmetTargets(report.coverage, targets);
      return {
        status: 'success',
        stage: 'coverage',
        coverage: formatSummary(report.coverage),
        targets: unmet.length ? `not met (${unmet.map((m) => `${m} < ${targets[m]}%`).join(', ')})` : 'met',
        ...(report.holes.length
          ? { uncovered: `\n${indent(holesForModel(report.holes, detail.holeLines, name))}` }
          : {}),
        ...(report.bounded
          ? { note: 'the simulation hit the time bound before $finish; end the stimulus with $finish' }
          : {}),
      };
    }
    case 'compile_error':
      return { status: 'compile_failed', stage: 'build', log: `\n${indent(log(report.diagnostics))}` };
    case 'rejected':
      return { status: 'rejected', stage: 'sandbox check', log: `\n${indent(log(report.diagnostics))}` };
    case 'resource_limit':
      return {
        status: 'resource_limit',
        stage: report.ms.sim ? 'simulate' : 'build',
        log: `\n${indent(log(report.diagnostics))}`,
      };
    case 'timeout':
      return {
        status: 'sim_failed',
        stage: 'simulate',
        log: `the simulation did not finish within the time limit${report.diagnostics.length ? `\n${indent(log(report.diagnostics))}` : ''}`,
      };
    default:
      return { status: 'sim_failed', stage: 'simulate', log: `\n${indent(log(report.diagnostics))}` };
  }
}

export function nextInstruction(report: CoverageReport | null, steering: string[]): string {
  let base: string;
  if (!report) base = 'Answer with a filename line and one ```systemverilog code block holding the complete testbench.';
  else if (report.status === 'ok')
    base = 'Improve coverage toward 100% by editing the testbench; drive the uncovered items listed above.';
  else if (report.status === 'compile_error') base = 'Fix the compile failure by editing the testbench.';
  else if (report.status === 'resource_limit')
    base = 'Use much smaller arrays, loops and stimulus: the testbench needed more memory or time than allowed.';
  else if (report.status === 'rejected')
    base =
      'Remove the forbidden constructs from the testbench: it may only drive stimulus (no file output, no $system, no DPI).';
  else base = 'Fix the simulation failure by editing the testbench; make sure the stimulus ends with $finish.';
  return withSteering(base, steering);
}

/** The user's words (chat steering) after an instruction, one `User request:` line each. */
export function withSteering(instruction: string, steering: readonly string[]): string {
  return steering.length ? `${instruction}\n${steering.map((s) => `User request: ${s}`).join('\n')}` : instruction;
}
