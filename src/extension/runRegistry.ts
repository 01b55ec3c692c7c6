/** The runs this window started: which are going (where Stop applies), and the recent ones (retry, steer, holes). */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { GenerateParams } from '../protocol';

export interface RunRecord {
  runId: string;
  /** The DUT document the run was started on. */
  dut: vscode.Uri;
  /** The top module: picked before the run, else reported by its `start` event, and finally by its result. */
  top?: string | undefined;
  params: GenerateParams;
  cts: vscode.CancellationTokenSource;
  running: boolean;
  /** The round in progress; 0 before the first. */
  round: number;
}

/** Finished runs kept for the chat's retry, steer and hole links. */
const KEPT_RECORDS = 20;

/** The run's top module, or the DUT file's base name until the run knows its top. */
export function topOf(run: Pick<RunRecord, 'top' | 'dut'>): string {
  return run.top ?? path.parse(run.dut.fsPath).name;
}

export class RunRegistry {
  private readonly records = new Map<string, RunRecord>();

  get(runId: string): RunRecord | undefined {
    return this.records.get(runId);
  }

  /** The running run of `dut`, or else the newest running one. */
  current(dut?: vscode.Uri): RunRecord | undefined {
    const running = [...this.records.values()].filter((r) => r.running);
    return running.find((r) => dut && r.dut.toString() === dut.toString()) ?? running[running.length - 1];
  }

  /** Records a run that is starting; the oldest finished ones are forgotten. */
  add(run: RunRecord): void {
    this.records.set(run.runId, run);
    for (const id of this.records.keys()) {
      if (this.records.size <= KEPT_RECORDS) break;
      if (!this.records.get(id)?.running) this.records.delete(id);
    }
    this.publishRunning();
  }

  /** Marks a run over. */
  end(run: RunRecord): void {
    run.running = false;
    this.publishRunning();
  }

  /** Cancels the run `runId`, or the one of the active editor's DUT (else the newest); false when none is going. */
  stop(runId?: string): boolean {
    const run = runId ? this.records.get(runId) : this.current(vscode.window.activeTextEditor?.document.uri);
    if (!run?.running) return false;
    run.cts.cancel();
    return true;
  }

  /** `chorus.running` decides where Stop is offered. */
  private publishRunning(): void {
    void vscode.commands.executeCommand(
      'setContext',
      'chorus.running',
      [...this.records.values()].some((r) => r.running),
    );
  }
}
