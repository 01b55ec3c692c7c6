/**
 * Soundness of formal closure in runs (issue 18): each verilog-eval-ecov item goes through a model-free run with
 * the formal stage on; every hole the run labels proven unreachable (k-induction or analysis) is then checked
 * against a long uniform-random simulation of the DUT (its own Verilator build): it must never be hit.
 *
 *   node --import tsx bench/formal-soundness.ts [--only Prob141,Prob151] [--limit N] [--budget 30] [--cycles 20000] [--fsm]
 *   (--fsm: the runs also target FSM states and arcs, so FSM holes are proven and checked too)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { generateToEnd } from '../src/engine';
import { instanceBelow, isFormalKind } from '../src/engine/formalLedger';
import { holeDetail } from '../src/sim';
import { silentLogger, type Hole } from '../src/protocol';
import { measureTestbench, randomTestbench, topOf } from '../test/formal/support';

export interface SoundnessItem {
  id: string;
  rtl_files: { name: string; content: string }[];
  dut_module_name: string;
  dut_instance_name?: string;
}

export interface ItemSoundness {
  id: string;
  /** Holes the run labels proven unreachable, by method. */
  induction: number;
  analysis: number;
  closed: boolean;
  /** Proven holes a random simulation hit (must be empty). */
  violations: string[];
  ms: number;
}

/** One item: a run with the formal stage, then its proven holes against `cycles` of uniform random stimulus. */
export async function checkItem(item: SoundnessItem, opts: { budgetSeconds: number; cycles: number; seed: number; fsm?: boolean }): Promise<ItemSoundness> {
  const started = Date.now();
  const dir = mkdtempSync(join(tmpdir(), 'chorus-formal-soundness-'));
  try {
    const files = item.rtl_files.map((f) => {
      const file = join(dir, basename(f.name));
      writeFileSync(file, f.content);
      return { file, content: f.content };
    });
    const rtlFiles = files.map((f) => f.file);
    const top = item.dut_module_name;
    const instance = item.dut_instance_name ?? 'uut';
    const run = await generateToEnd(
      { rtlFiles, top, instanceName: instance, engine: 'random', targets: { line: 100, branch: 100, ...(opts.fsm ? { fsm_state: 100, fsm_arc: 100 } : {}) }, seed: opts.seed, budgetSeconds: opts.budgetSeconds },
      { logger: silentLogger, signal: new AbortController().signal },
    );
    const proven = run.holes.filter((h) => isFormalKind(h.kind) && h.proof);
    const violations: string[] = [];
    if (proven.length) {
      // The support testbench names the DUT `uut`.
      const points = await measureTestbench(rtlFiles, top, randomTestbench(topOf(files, top), opts.cycles, opts.seed));
      const hit = (h: Hole) =>
        points.some(
          (p) =>
            p.count > 0 &&
            resolve(p.file) === resolve(h.file) &&
            p.line === h.line &&
            p.kind === h.kind &&
            h.detail.startsWith(holeDetail(p)) &&
            instanceBelow(p.hierarchy, 'uut') === instanceBelow(h.hierarchy, instance),
        );
      for (const h of proven) if (hit(h)) violations.push(`${basename(h.file)}:${h.line} ${h.detail} (${h.proof?.method}: ${h.unreachable})`);
    }
    return {
      id: item.id,
      induction: proven.filter((h) => h.proof?.method === 'induction').length,
      analysis: proven.filter((h) => h.proof?.method === 'analysis').length,
      closed: run.closed === true,
      violations,
      ms: Date.now() - started,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function corpusItems(path: string): SoundnessItem[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as SoundnessItem);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const corpus = resolve(arg('--corpus') ?? join(__dirname, '..', '..', 'shared', 'corpus', 'verilog-eval-ecov', 'verilog-eval-ecov.jsonl'));
  const only = arg('--only')?.split(',');
  let items = corpusItems(corpus).filter((i) => !only || only.some((o) => i.id.includes(o)));
  const limit = Number(arg('--limit') ?? 0);
  if (limit > 0) items = items.slice(0, limit);
  const opts = { budgetSeconds: Number(arg('--budget') ?? 30), cycles: Number(arg('--cycles') ?? 20_000), seed: Number(arg('--seed') ?? 1), fsm: args.includes('--fsm') };
  const out: ItemSoundness[] = [];
  for (const item of items) {
    const r = await checkItem(item, opts);
    out.push(r);
    process.stdout.write(`${r.id}: ${r.induction} by induction, ${r.analysis} by analysis, closed ${r.closed}, ${r.violations.length} violation(s)${r.violations.length ? `: ${r.violations.join('; ')}` : ''} (${(r.ms / 1000).toFixed(1)} s)\n`);
  }
  const claims = out.reduce((n, r) => n + r.induction + r.analysis, 0);
  const bad = out.reduce((n, r) => n + r.violations.length, 0);
  process.stdout.write(`\n${out.length} item(s), ${claims} point(s) proven unreachable in runs, ${bad} hit by ${opts.cycles} random cycles.\n`);
  process.exitCode = bad ? 1 : 0;
}

if (require.main === module) void main();
