/**
 * Publishes a run's result (the `chorus/generate` response): its final coverage into the store (the gutter), the
 * Test Coverage view, and the testbench file beside the DUT, never replacing a file the user changed without
 * asking. `onDidSettle` then tells how the run ended, with the result saying where its testbench went.
 */
import * as vscode from 'vscode';
import type { GenerateResponse } from '../protocol';
import type { AsyncEvent } from './asyncEvent';
import type { CoverageStore, DutCoverage } from './store';
import { describeError } from './errors';
import type { RunEnd, RunOutcome, RunStart } from './runLauncher';
import { topOf, type RunRecord } from './runRegistry';
import type { ChorusSettings } from './settings';
import { toFileCoverage, type CoverageTests, type FileCoverageWithDetails } from './testCoverage';
import { testbenchUri, type TestbenchWriter, type WriteOutcome } from './testbench';

export interface PublisherDeps {
  tests: Pick<CoverageTests, 'startRun' | 'itemFor' | 'publish'>;
  testbenches: Pick<TestbenchWriter, 'write'>;
  store: CoverageStore;
  settings(scope: vscode.Uri): ChorusSettings;
}

export interface PublisherEvents {
  started: vscode.Event<RunStart>;
  ended: AsyncEvent<RunEnd>;
}

export interface TestbenchWritten {
  dut: vscode.Uri;
  target: vscode.Uri;
  /** `declined`: the user kept their file, and the new testbench is open unsaved instead. */
  outcome: WriteOutcome;
}

interface OpenTestRun {
  testRun: vscode.TestRun;
  /** Opened here (a run from the palette) rather than handed in by the Coverage profile, so ended here too. */
  ownedHere: boolean;
}

export class RunPublisher implements vscode.Disposable {
  private readonly testRuns = new Map<string, OpenTestRun>();
  private readonly settled = new vscode.EventEmitter<RunEnd>();
  private readonly written = new vscode.EventEmitter<TestbenchWritten>();
  private readonly subscriptions: vscode.Disposable[];
  /** A run's result is published (or it failed or was cancelled): the last word on it. */
  readonly onDidSettle = this.settled.event;
  /** A testbench went to a file, or was kept unsaved because the user declined to replace their file. */
  readonly onDidWriteTestbench = this.written.event;

  constructor(
    private readonly deps: PublisherDeps,
    events: PublisherEvents,
  ) {
    this.subscriptions = [events.started((s) => this.open(s.run, s.testRun)), events.ended((e) => this.settle(e))];
  }

  /** Every run shows in Test Coverage from its start: in the profile's test run, or in one of its own. */
  private open(run: RunRecord, given?: vscode.TestRun): OpenTestRun {
    const open = { testRun: given ?? this.deps.tests.startRun(run.dut, topOf(run)), ownedHere: !given };
    this.testRuns.set(run.runId, open);
    return open;
  }

  private async settle({ run, outcome }: RunEnd): Promise<void> {
    const open = this.testRuns.get(run.runId) ?? this.open(run);
    this.testRuns.delete(run.runId);
    let final: RunOutcome;
    try {
      final = await this.publish(run, outcome, open.testRun);
    } catch (error) {
      open.testRun.errored(
        this.deps.tests.itemFor(run.dut, topOf(run)),
        new vscode.TestMessage(describeError(error).message),
      );
      final = { kind: 'failed', error };
    } finally {
      if (open.ownedHere) open.testRun.end();
    }
    this.settled.fire({ run, outcome: final });
  }

  private async publish(run: RunRecord, outcome: RunOutcome, testRun: vscode.TestRun): Promise<RunOutcome> {
    if (outcome.kind === 'cancelled') {
      testRun.skipped(this.deps.tests.itemFor(run.dut, topOf(run)));
      return outcome;
    }
    if (outcome.kind === 'failed') {
      testRun.errored(
        this.deps.tests.itemFor(run.dut, topOf(run)),
        new vscode.TestMessage(describeError(outcome.error).message),
      );
      return outcome;
    }
    const result = outcome.result;
    run.top = result.top;
    // Without a line table in the result, the last round's (from its loop event) stays.
    const entry = this.deps.store.update(run.dut, {
      top: result.top,
      coverage: result.coverage,
      holes: result.holes,
      lines: result.lines,
      result,
    });
    this.deps.tests.publish(testRun, run.dut, result, await fileCoverage(entry), outcome.ms);
    const target = result.testbench.trim()
      ? await this.writeTestbench(run.dut, result.top, result.testbench)
      : undefined;
    const published: GenerateResponse = { ...result, testbenchPath: target?.fsPath ?? result.testbenchPath };
    return { ...outcome, result: published };
  }

  /**
   * Writes a testbench for `dut` (asking before replacing a file that is not CHORUS's own) and opens it beside;
   * returns where it went, or undefined when the user kept their file (the new testbench then opens unsaved).
   */
  async writeTestbench(dut: vscode.Uri, top: string, text: string): Promise<vscode.Uri | undefined> {
    const target = testbenchUri(dut, this.deps.settings(dut).testbenchFolder, top);
    const outcome = await this.deps.testbenches.write(target, text, top);
    if (outcome === 'declined') {
      // Keep the work: show it unsaved instead of losing it.
      const doc = await vscode.workspace.openTextDocument({ language: 'systemverilog', content: text });
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
      this.written.fire({ dut, target, outcome });
      return undefined;
    }
    this.deps.store.setTestbench(dut, target);
    await vscode.window.showTextDocument(target, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true });
    this.written.fire({ dut, target, outcome });
    return target;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.settled.dispose();
    this.written.dispose();
  }
}

/** The Test Coverage of each DUT file with measured lines, with statement ranges from the file's text. */
async function fileCoverage(entry: DutCoverage): Promise<FileCoverageWithDetails[]> {
  const files: FileCoverageWithDetails[] = [];
  for (const data of entry.files.values()) {
    if (!data.lines.length) continue;
    const uri = vscode.Uri.file(data.file);
    const doc = await Promise.resolve(vscode.workspace.openTextDocument(uri)).catch(() => undefined);
    const lineText = (line: number) =>
      doc && line >= 1 && line <= doc.lineCount ? doc.lineAt(line - 1).text : undefined;
    files.push(toFileCoverage(uri, data, lineText));
  }
  return files;
}
