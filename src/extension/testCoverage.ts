/**
 * The native Test Coverage API: one test item per DUT document, a Coverage run profile that runs the closure loop,
 * and each run's result published as `FileCoverage` with statement and branch details. Points proven unreachable
 * or waived are left out of the details and totals, as signoff tools count exclusions (the API has no "excluded"
 * state; see statements.ts), and listed, with their proofs and waivers, in the run's output and the DUT's test
 * message, beside the engine's verdict (its signoff totals and what it excluded), which is shown, never re-judged.
 */
import * as vscode from 'vscode';
import {
  closureText,
  formalSummaryText,
  proofText,
  REPORTED_KINDS,
  waiverText,
  type GenerateResult,
  type Verdict,
} from '../protocol';
import type { FileCoverageData } from './coverageModel';
import { provenPoints, statementSpecs, waivedPoints, type StatementSpec } from './statements';
import { summaryText, targetsMissed } from './format';

/** The range of a 1-based line: from its first non-blank character to its end when the text is known. */
export function lineRange(line: number, text?: string): vscode.Range {
  const l = Math.max(0, line - 1);
  if (text === undefined) return new vscode.Range(l, 0, l, 0);
  const start = text.length - text.trimStart().length;
  return new vscode.Range(l, start, l, text.length);
}

export function toStatements(
  specs: readonly StatementSpec[],
  lineText?: (line: number) => string | undefined,
): vscode.StatementCoverage[] {
  return specs.map((s) => {
    const range = lineRange(s.line, lineText?.(s.line));
    const branches = s.branches.map((b) => new vscode.BranchCoverage(b.executed, range, b.label));
    return new vscode.StatementCoverage(s.executed, range, branches);
  });
}

export interface FileCoverageWithDetails {
  coverage: vscode.FileCoverage;
  details: vscode.StatementCoverage[];
}

/**
 * One DUT file's lines → `FileCoverage.fromDetails`, keeping the details for `loadDetailedCoverage`; its holes
 * proven unreachable are left out.
 */
export function toFileCoverage(
  uri: vscode.Uri,
  data: Pick<FileCoverageData, 'lines'> & Partial<Pick<FileCoverageData, 'holes'>>,
  lineText?: (line: number) => string | undefined,
): FileCoverageWithDetails {
  const details = toStatements(statementSpecs(data.lines, data.holes), lineText);
  return { coverage: vscode.FileCoverage.fromDetails(uri, details), details };
}

export type CoverageRunner = (dut: vscode.Uri, token: vscode.CancellationToken, run: vscode.TestRun) => Promise<void>;

export class CoverageTests implements vscode.Disposable {
  readonly controller: vscode.TestController;
  readonly profile: vscode.TestRunProfile;
  /** Details of every FileCoverage handed to VS Code, served back on demand. */
  private readonly details = new WeakMap<vscode.FileCoverage, vscode.StatementCoverage[]>();

  constructor(private readonly runner: CoverageRunner) {
    this.controller = vscode.tests.createTestController('chorus', 'CHORUS');
    this.profile = this.controller.createRunProfile(
      'Generate high-coverage stimulus',
      vscode.TestRunProfileKind.Coverage,
      (request, token) => this.runRequest(request, token),
      true,
    );
    this.profile.loadDetailedCoverage = async (_run, fileCoverage) => this.details.get(fileCoverage) ?? [];
  }

  /** The test item of a DUT document, created on first use. */
  itemFor(dut: vscode.Uri, label?: string): vscode.TestItem {
    const id = dut.toString();
    let item = this.controller.items.get(id);
    if (!item) {
      item = this.controller.createTestItem(id, label ?? baseName(dut), dut);
      this.controller.items.add(item);
    } else if (label && item.label !== label) {
      item.label = label;
    }
    return item;
  }

  /** Opens a test run outside the profile (a run started from the command palette). */
  startRun(dut: vscode.Uri, top: string): vscode.TestRun {
    const item = this.itemFor(dut, top);
    const run = this.controller.createTestRun(
      new vscode.TestRunRequest([item], undefined, this.profile),
      `CHORUS: ${top}`,
      false,
    );
    run.started(item);
    return run;
  }

  /** Adds a result's coverage to the run and marks the DUT passed or failed against its targets. */
  publish(
    run: vscode.TestRun,
    dut: vscode.Uri,
    result: GenerateResult,
    files: Iterable<FileCoverageWithDetails>,
    durationMs?: number,
  ): void {
    for (const f of files) {
      this.details.set(f.coverage, f.details);
      run.addCoverage(f.coverage);
    }
    const item = this.itemFor(dut, result.top);
    const closure = closureLines(result);
    if (closure.length) run.appendOutput(`${closure.join('\r\n')}\r\n`, undefined, item);
    if (result.pass) {
      run.passed(item, durationMs);
    } else {
      const missed = targetsMissed(result);
      const text = `${summaryText(result.verdict?.coverage ?? result.coverage)}${missed ? ` — below target: ${missed}` : ''} (${result.stopReason}${result.stopDetail ? `: ${result.stopDetail}` : ''})`;
      run.failed(item, new vscode.TestMessage([text, ...closure].join('\n')), durationMs);
    }
  }

  /** Runs the loop for each requested DUT (or the active editor's) in one test run. */
  private async runRequest(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const items = request.include?.length ? [...request.include] : [...gather(this.controller.items)];
    const active = vscode.window.activeTextEditor?.document.uri;
    const duts = items.map((i) => i.uri).filter((u): u is vscode.Uri => !!u);
    if (!duts.length && active) duts.push(active);
    const run = this.controller.createTestRun(request, 'CHORUS coverage', false);
    try {
      for (const dut of duts) {
        if (token.isCancellationRequested) break;
        const item = this.itemFor(dut);
        run.started(item);
        await this.runner(dut, token, run);
      }
    } finally {
      run.end();
    }
  }

  dispose(): void {
    this.profile.dispose();
    this.controller.dispose();
  }
}

/**
 * The verdict's counting: `Signoff coverage (proven and waived points excluded, as URG and IMC count them): line
 * 100% · branch 100%; excluded: branch 2 proven, 1 waived`; undefined when nothing was excluded (raw = signoff).
 */
export function verdictLine(verdict: Verdict | undefined): string | undefined {
  if (!verdict) return undefined;
  const excluded = REPORTED_KINDS.flatMap((k) => {
    const e = verdict.excluded[k];
    if (!e || e.proven + e.waived === 0) return [];
    const parts = [e.proven ? `${e.proven} proven` : '', e.waived ? `${e.waived} waived` : ''].filter(Boolean);
    return [`${k} ${parts.join(', ')}`];
  });
  if (!excluded.length) return undefined;
  if (verdict.counting === 'raw')
    return `Raw coverage (required): excluded points count as missed (${excluded.join('; ')})`;
  return `Signoff coverage, proven and waived points excluded as URG and IMC count them: ${summaryText(verdict.coverage)}; excluded: ${excluded.join('; ')}`;
}

/**
 * Whether the run is closed, what the formal engine did, the verdict's counting, and each point proven unreachable
 * or waived, with its proof or waiver.
 */
export function closureLines(result: Pick<GenerateResult, 'holes' | 'closed' | 'formal' | 'verdict'>): string[] {
  const out: string[] = [];
  const closure = closureText(result);
  if (closure) out.push(closure);
  if (result.formal) out.push(formalSummaryText(result.formal));
  const counted = verdictLine(result.verdict);
  if (counted) out.push(counted);
  const proven = provenPoints(result.holes);
  if (proven.length) {
    out.push('Proven unreachable, left out of the Test Coverage totals:');
    // One line per source point: the holes of several instances of a module say the same.
    out.push(
      ...new Set(
        proven.map((h) => `  ${vscode.workspace.asRelativePath(h.file)}:${h.line} ${h.detail} — ${proofText(h) ?? ''}`),
      ),
    );
  }
  const waived = waivedPoints(result.holes);
  if (waived.length) {
    out.push('Waived (chorus.waiverFile), left out of the Test Coverage totals:');
    out.push(
      ...new Set(
        waived.map(
          (h) => `  ${vscode.workspace.asRelativePath(h.file)}:${h.line} ${h.detail} — ${waiverText(h) ?? ''}`,
        ),
      ),
    );
  }
  return out;
}

function gather(items: vscode.TestItemCollection): vscode.TestItem[] {
  const out: vscode.TestItem[] = [];
  items.forEach((i) => out.push(i));
  return out;
}

function baseName(uri: vscode.Uri): string {
  return uri.path.slice(uri.path.lastIndexOf('/') + 1);
}
