/** The latest coverage per DUT document, live during a run and final after it; the gutter and commands read it. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CoverageSummary, GenerateResult, Hole, LineCoverage } from '../protocol';
import { groupByFile, type FileCoverageData } from './coverageModel';

export interface DutCoverage {
  dut: vscode.Uri;
  top: string;
  coverage?: CoverageSummary | undefined;
  holes: Hole[];
  /** By absolute file path. */
  files: Map<string, FileCoverageData>;
  result?: GenerateResult | undefined;
  /** Where CHORUS wrote this DUT's testbench. */
  testbench?: vscode.Uri | undefined;
  /** Update counter: the newest entry wins when two DUTs share a file. */
  seq: number;
}

export interface CoverageUpdate {
  top: string;
  coverage?: CoverageSummary;
  holes: Hole[];
  /** Per-line table; when absent the previous table stays and only holes change. */
  lines?: LineCoverage[] | undefined;
  result?: GenerateResult;
}

export class CoverageStore implements vscode.Disposable {
  private readonly byDut = new Map<string, DutCoverage>();
  private seq = 0;
  private readonly changed = new vscode.EventEmitter<DutCoverage>();
  readonly onDidChange = this.changed.event;

  update(dut: vscode.Uri, u: CoverageUpdate): DutCoverage {
    const prev = this.byDut.get(dut.toString());
    let files: Map<string, FileCoverageData>;
    if (u.lines) {
      files = groupByFile(u.lines, u.holes);
    } else {
      // Keep the last line table, replace the holes.
      files = groupByFile([], u.holes);
      for (const [file, old] of prev?.files ?? []) {
        const cur = files.get(file);
        if (cur) cur.lines = old.lines;
        else files.set(file, { file, lines: old.lines, holes: [] });
      }
    }
    const entry: DutCoverage = {
      dut,
      top: u.top,
      coverage: u.coverage ?? prev?.coverage,
      holes: u.holes,
      files,
      result: u.result ?? prev?.result,
      testbench: prev?.testbench,
      seq: ++this.seq,
    };
    this.byDut.set(dut.toString(), entry);
    this.changed.fire(entry);
    return entry;
  }

  setTestbench(dut: vscode.Uri, testbench: vscode.Uri): void {
    const e = this.byDut.get(dut.toString());
    if (e) e.testbench = testbench;
  }

  get(dut: vscode.Uri): DutCoverage | undefined {
    return this.byDut.get(dut.toString());
  }

  /** The newest DUT entry that covers `fsPath` (the DUT document itself or one of its files). */
  forFile(fsPath: string): { entry: DutCoverage; data: FileCoverageData } | undefined {
    const p = path.normalize(fsPath);
    let best: { entry: DutCoverage; data: FileCoverageData } | undefined;
    for (const entry of this.byDut.values()) {
      const data = entry.files.get(p);
      if (data && (!best || entry.seq > best.entry.seq)) best = { entry, data };
    }
    return best;
  }

  /** The newest entry overall (commands run without a DUT editor fall back to it). */
  latest(): DutCoverage | undefined {
    let best: DutCoverage | undefined;
    for (const e of this.byDut.values()) if (!best || e.seq > best.seq) best = e;
    return best;
  }

  dispose(): void {
    this.changed.dispose();
  }
}
