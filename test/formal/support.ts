/** Testbenches for the formal tests: plain uniform random stimulus, and the replay of a witness's rows. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeSources } from '../../src/hdl';
import { measure, provePoints, type TargetVerdict, type Witness } from '../../src/engine';
import { silentLogger, type CoveragePoint, type ModuleInfo } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

export const services = () => ({ logger: silentLogger, signal: new AbortController().signal });

export function topOf(files: { file: string; content: string }[], top: string): ModuleInfo {
  const a = analyzeSources(
    files.map((f) => ({ name: f.file, content: f.content })),
    { top },
  );
  const m = a.modules.find((x) => x.name === top);
  if (!m) throw new Error(`no module ${top}`);
  return m;
}

function header(top: ModuleInfo): string[] {
  const lines = ['`timescale 1ns/1ps', 'module tb;'];
  for (const p of top.ports) {
    const w = p.width > 1 ? `[${p.width - 1}:0] ` : '';
    lines.push(p.direction === 'input' ? `  logic ${w}${p.name} = 0;` : `  wire ${w}${p.name};`);
  }
  lines.push(`  ${top.name} uut (${top.ports.map((p) => `.${p.name}(${p.name})`).join(', ')});`);
  return lines;
}

const clockCycle = (top: ModuleInfo) => (top.clock ? `#1 ${top.clock} = 1; #1 ${top.clock} = 0;` : '#2;');

/** Uniform random inputs every cycle (no dictionary, unlike the search), reset held for the first two cycles. */
export function randomTestbench(top: ModuleInfo, cycles: number, seed: number): string {
  const lines = header(top);
  const inputs = top.ports.filter((p) => p.direction === 'input' && p.name !== top.clock);
  const reset = top.reset;
  lines.push(
    '  initial begin',
    `    int unsigned s = ${seed};`,
    `    void'($urandom(s));`,
    `    for (int i = 0; i < ${cycles}; i++) begin`,
  );
  for (const p of inputs) {
    if (reset && p.name === reset.name) continue;
    const words = Math.ceil(Math.max(1, p.width) / 32);
    lines.push(`      ${p.name} = {${Array.from({ length: words }, () => '$urandom()').join(', ')}};`);
  }
  if (reset) {
    const on = reset.activeLow ? "1'b0" : "1'b1";
    const off = reset.activeLow ? "1'b1" : "1'b0";
    // Reset at the start and now and then after (1 in 64 cycles).
    lines.push(`      ${reset.name} = (i < 2 || $urandom_range(63) == 0) ? ${on} : ${off};`);
  }
  lines.push(`      ${clockCycle(top)}`, '    end', '    $finish;', '  end', 'endmodule', '');
  return lines.join('\n');
}

/** Replays a witness from time zero: each row's inputs, then one clock cycle; one more cycle at the end. */
export function replayTestbench(top: ModuleInfo, w: Witness): string {
  const lines = header(top);
  lines.push('  initial begin');
  for (const row of w.rows) {
    const assigns = w.inputs.map((i) => `${i.name} = ${i.width}'h${row[i.name]};`).join(' ');
    lines.push(`    ${assigns} ${clockCycle(top)}`);
  }
  lines.push(`    ${clockCycle(top)}`, '    $finish;', '  end', 'endmodule', '');
  return lines.join('\n');
}

/** Writes a testbench to a fresh folder and measures it (real Verilator). */
export async function measureTestbench(rtlFiles: string[], top: string, testbench: string): Promise<CoveragePoint[]> {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-formal-'));
  const tb = join(dir, 'tb.sv');
  writeFileSync(tb, testbench);
  const r = await measure({ rtlFiles, testbench: tb, top }, services());
  if (r.status !== 'ok')
    throw new Error(`testbench did not run: ${r.status} ${JSON.stringify(r.diagnostics.slice(0, 3))}`);
  return r.points;
}

export const samePoint = (
  a: { file: string; line: number; column: number; kind: string; comment: string },
  b: CoveragePoint,
) => a.file === b.file && a.line === b.line && a.column === b.column && a.kind === b.kind && a.comment === b.comment;

export const fixture = (name: string) => join(repoRoot, 'test', 'fixtures', 'formal', name);

/** The 1-based line of a file's first line holding a text (0 when none does). */
export const lineOf = (file: string, text: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(text)) + 1;

/** Whether a run hit a verdict's point. */
export const hits = (run: CoveragePoint[], v: TargetVerdict) => run.some((p) => samePoint(v.target, p) && p.count > 0);

/**
 * Holes of a short random run of a fixture, their verdicts, and a long random run (another seed, resets 1 cycle in
 * 64) that must hit no point proven unreachable.
 */
export async function decideChecked(name: string, top: string, cycles: number, longCycles: number) {
  const file = fixture(name);
  const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
  const points = await measureTestbench([file], top, randomTestbench(mod, cycles, 7));
  const result = await provePoints(points, { rtlFiles: [file], top }, { timeoutSeconds: 300 }, services());
  const long = await measureTestbench([file], top, randomTestbench(mod, longCycles, 11));
  for (const v of result.verdicts.filter((x) => x.verdict.status === 'unreachable'))
    if (hits(long, v))
      throw new Error(
        `${v.target.kind} ${v.target.comment} at line ${v.target.line} is proven unreachable but random stimulus hits it`,
      );
  return { file, mod, result, long };
}

/**
 * A fixture proven from a testbench that runs no cycle (every point that needs a value is a hole), beside a long
 * uniform random run to check the proofs against (at the default parameters). `log` collects the engine's messages.
 */
export async function proveFromNothing(
  name: string,
  top: string,
  longCycles: number,
  opts: { parameters?: Record<string, string>; log?: string[] } = {},
) {
  const file = fixture(name);
  const mod = topOf([{ file, content: readFileSync(file, 'utf8') }], top);
  const points = await measureTestbench([file], top, randomTestbench(mod, 0, 3));
  const note = (m: string) => void opts.log?.push(m);
  const result = await provePoints(
    points,
    { rtlFiles: [file], top },
    { timeoutSeconds: 300, ...(opts.parameters ? { parameters: opts.parameters } : {}) },
    { ...services(), logger: { debug: note, info: note, warn: note, error: note } },
  );
  const long = await measureTestbench([file], top, randomTestbench(mod, longCycles, 11));
  return { file, top, mod, result, long };
}
