/**
 * Shared by the run tests: a workspace holding examples/counter/counter.sv open in the editor, coverage of it for
 * two rounds, a finished result, a run record, and a scripted fake of the language server.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type {
  CoverageSummary,
  GenerateParams,
  GenerateResponse,
  Hole,
  LineCoverage,
  LoopEvent,
  LoopEventParams,
} from '../../src/protocol';
import type { RunRecord } from '../../src/extension/runRegistry';
import type { ChorusServer } from '../../src/extension/server';
import { repoRoot } from '../helpers/cli';
import { makeDocument, makeEditor, stub, type FakeEditor } from './stub/vscode';

export const silent = { debug() {}, info() {}, warn() {}, error() {} };

export function memento() {
  const data = new Map<string, unknown>();
  return {
    get: <T>(k: string) => data.get(k) as T | undefined,
    update: async (k: string, v: unknown) => void data.set(k, v),
    keys: () => [...data.keys()],
  };
}

const kind = (covered: number, total: number) => ({ covered, total, pct: Math.round((1000 * covered) / total) / 10 });
/** `l` of 10 lines and `b` of 8 branch arms covered; 20 of 40 toggles. */
export const cov = (l: number, b: number): CoverageSummary => ({
  line: kind(l, 10),
  branch: kind(b, 8),
  toggle: kind(20, 40),
});

// counter.sv: line 17 `if (!rst_n)`, 26 `if (count == MAX)`, 34 `2'b11: count <= load_value;`
export function round1Lines(file: string): LineCoverage[] {
  return [
    {
      file,
      line: 17,
      hits: 40,
      branches: [
        { label: 'if', count: 4 },
        { label: 'else', count: 36 },
      ],
      missingToggles: [],
    },
    {
      file,
      line: 26,
      hits: 9,
      branches: [
        { label: 'if', count: 0 },
        { label: 'else', count: 9 },
      ],
      missingToggles: [],
    },
    { file, line: 34, hits: 0, branches: [], missingToggles: [] },
  ];
}

export function round1Holes(file: string): Hole[] {
  return [
    { kind: 'branch', file, line: 26, detail: 'if arm of if (count == MAX) never taken' },
    { kind: 'line', file, line: 34, detail: "case item 2'b11" },
  ];
}

/** Round 2 covers everything round 1 missed. */
export function round2Lines(file: string): LineCoverage[] {
  return round1Lines(file).map((l) => ({
    ...l,
    hits: l.hits || 3,
    branches: l.branches.map((b) => ({ ...b, count: b.count || 1 })),
  }));
}

export function finalResult(
  p: Pick<GenerateParams, 'engine' | 'targets'>,
  lines: LineCoverage[] | undefined,
): GenerateResponse {
  return {
    top: 'counter',
    engine: p.engine ?? 'random',
    pass: true,
    targets: p.targets ?? {},
    coverage: cov(10, 8),
    holes: [],
    rounds: [{ index: 1, status: 'ok', coverage: cov(8, 6), ms: { generate: 5, build: 900, sim: 30 } }],
    testbench: 'module tb_counter;\n  counter uut (.*);\nendmodule\n',
    stopReason: 'targets met',
    diagnostics: [],
    lines,
  };
}

export interface CounterWorkspace {
  dir: string;
  dut: vscode.Uri;
  editor: FakeEditor;
}

/** Resets the stub and opens a fresh copy of counter.sv in a temporary workspace folder. */
export function openCounter(): CounterWorkspace {
  stub.reset();
  const dir = mkdtempSync(join(tmpdir(), 'chorus-ext-'));
  copyFileSync(join(repoRoot, 'examples', 'counter', 'counter.sv'), join(dir, 'counter.sv'));
  const dut = vscode.Uri.file(join(dir, 'counter.sv'));
  stub.workspaceFolder = vscode.Uri.file(dir);
  const editor = makeEditor(makeDocument(dut, readFileSync(dut.fsPath, 'utf8')));
  stub.activeTextEditor = editor;
  stub.visibleTextEditors = [editor];
  return { dir, dut, editor };
}

export function runRecord(dut: vscode.Uri, patch: Partial<RunRecord> = {}): RunRecord {
  return {
    runId: 'run-1',
    dut,
    top: 'counter',
    params: { uri: dut.toString(), runId: 'run-1', targets: { line: 100 }, rounds: 3 },
    cts: new vscode.CancellationTokenSource(),
    running: true,
    round: 0,
    ...patch,
  };
}

/** How the fake server answers `chorus/generate`: `emit` sends a `chorus/loopEvent` of the run. */
export type GenerateScript = (
  p: GenerateParams,
  token: vscode.CancellationToken,
  emit: (e: LoopEvent) => void,
) => Promise<GenerateResponse>;

export interface FakeServer extends ChorusServer {
  /** Every `chorus/generate` request, in order. */
  calls: GenerateParams[];
  script: GenerateScript;
  /** The top candidates `chorus/tops` answers. */
  topModules: string[];
}

export function fakeServer(onLoopEvent: (p: LoopEventParams) => void): FakeServer {
  const server: FakeServer = {
    calls: [],
    script: async () => assert.fail('no script set'),
    topModules: ['counter'],
    generate: (p, token) => {
      server.calls.push(p);
      return server.script(p, token ?? new vscode.CancellationTokenSource().token, (event) =>
        onLoopEvent({ runId: p.runId, uri: p.uri, event }),
      );
    },
    tops: async () => ({ modules: [...server.topModules], tops: [...server.topModules] }),
    coverage: async () => ({ result: null, lines: [] }),
    steer: async () => ({ accepted: false }),
    ask: async () => ({ text: '' }),
    listModels: async () => ({ models: [] }),
    exportLcov: async () => ({ lcov: '' }),
    exportWaivers: async (p) => ({ status: 'written', file: p.target, excluded: 0 }),
    filelistsFor: async () => ({ lists: [] }),
  };
  return server;
}
