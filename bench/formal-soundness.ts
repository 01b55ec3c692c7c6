/**
 * Soundness of formal closure in runs: each verilog-eval-ecov item goes through a model-free run with
 * the formal stage on; every hole the run labels proven unreachable (k-induction or analysis) is then checked
 * against a long uniform-random simulation of the DUT (its own Verilator build): it must never be hit.
 *
 *   node --import tsx bench/formal-soundness.ts [--only Prob141,Prob151] [--limit N] [--budget 30] [--cycles 20000] [--fsm]
 *   (--fsm: the runs also target FSM states and arcs, so FSM holes are proven and checked too)
 *
 * Real IP (`{id, top, filelist, parameters}` items, read as `chorus bench` reads them): the same run on each item's
 * filelist, include folders, defines and parameters, then the plain random baseline of bench/real-ip-plain.ts (the
 * engine's own harness, 20,000-cycle runs of fresh uniform random inputs until --random-seconds pass):
 *
 *   node --import tsx bench/formal-soundness.ts --items <corpus>/real-ip/items.jsonl [--only axis_fifo] [--budget 30] [--random-seconds 60]
 *   (--random-cycles N instead: the random runs go on until N cycles, however long that takes)
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { generateToEnd } from '../src/engine';
import { instanceBelow, isFormalKind } from '../src/engine/closure/ledger';
import { holeDetail } from '../src/sim';
import { silentLogger, type CoveragePoint, type Hole } from '../src/protocol';
import { itemDesign } from '../src/cli/bench/run';
import { parseItems, type BenchItem } from '../src/cli/bench/schema';
import { measureTestbench, randomTestbench, topOf } from '../test/formal/support';
import { plainRandomInBudget } from './real-ip-plain';
import { corpusPath } from '../test/helpers/corpus';

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
  /** Random cycles simulated against the proofs (0 when nothing was proven). */
  cycles?: number;
}

/** The point of a random simulation (its DUT instance named `simInstance`) a hole stands for. */
export const samePlace = (h: Hole, p: CoveragePoint, runInstance: string, simInstance: string) =>
  resolve(p.file) === resolve(h.file) &&
  p.line === h.line &&
  p.kind === h.kind &&
  h.detail.startsWith(holeDetail(p)) &&
  instanceBelow(p.hierarchy, simInstance) === instanceBelow(h.hierarchy, runInstance);

/** The proven holes some point of a random simulation hit, in words. */
function provenHits(proven: Hole[], points: CoveragePoint[], runInstance: string, simInstance: string): string[] {
  const hit = (h: Hole) => points.some((p) => p.count > 0 && samePlace(h, p, runInstance, simInstance));
  return proven
    .filter(hit)
    .map((h) => `${basename(h.file)}:${h.line} ${h.detail} (${h.proof?.method}: ${h.unreachable})`);
}

/** One item's result: its proven holes counted by method, and what contradicted them. */
function tally(
  id: string,
  proven: Hole[],
  closed: boolean | undefined,
  violations: string[],
  started: number,
): ItemSoundness {
  return {
    id,
    induction: proven.filter((h) => h.proof?.method === 'induction').length,
    analysis: proven.filter((h) => h.proof?.method === 'analysis').length,
    closed: closed === true,
    violations,
    ms: Date.now() - started,
  };
}

/** A real-IP item: a run with the formal stage on its filelist, then its proven holes against plain random runs. */
export async function checkDesignItem(
  item: BenchItem,
  opts: { budgetSeconds: number; randomSeconds: number; randomCycles?: number | undefined; seed: number },
): Promise<ItemSoundness> {
  const started = Date.now();
  if (!item.design) throw new Error(`${item.id}: not a filelist item`);
  const design = await itemDesign(item.design);
  const top = item.dut_module_name;
  const signal = new AbortController().signal;
  const run = await generateToEnd(
    {
      ...design,
      top,
      engine: 'random',
      targets: { line: 100, branch: 100 },
      seed: opts.seed,
      budgetSeconds: opts.budgetSeconds,
    },
    { logger: silentLogger, signal },
  );
  const proven = run.holes.filter((h) => isFormalKind(h.kind) && h.proof);
  let violations: string[] = [];
  let cycles = 0;
  if (proven.length) {
    // The baseline's harness instantiates the DUT as the run's does (`uut`).
    const plain = await plainRandomInBudget(
      // With the FSM probe: the run's FSM holes are proven too, and checked like the others.
      {
        ...design,
        top,
        seed: opts.seed + 1,
        budgetMs: opts.randomSeconds * 1000,
        cycles: opts.randomCycles,
        fsm: proven.some((h) => h.kind === 'fsm_state' || h.kind === 'fsm_arc'),
      },
      { logger: silentLogger, signal },
    );
    violations = provenHits(proven, plain.points, 'uut', 'uut');
    // A proven hole the random runs have no point for would pass unchecked: that is a failure of the check.
    const missing = proven.filter((h) => !plain.points.some((p) => samePlace(h, p, 'uut', 'uut')));
    violations.push(
      ...missing.map(
        (h) => `${basename(h.file)}:${h.line} ${h.detail}: no such point in the random runs (not checked)`,
      ),
    );
    cycles = plain.cycles;
  }
  return { ...tally(item.id, proven, run.closed, violations, started), cycles };
}

/** One item: a run with the formal stage, then its proven holes against `cycles` of uniform random stimulus. */
export async function checkItem(
  item: SoundnessItem,
  opts: { budgetSeconds: number; cycles: number; seed: number; fsm?: boolean },
): Promise<ItemSoundness> {
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
      {
        rtlFiles,
        top,
        instanceName: instance,
        engine: 'random',
        targets: { line: 100, branch: 100, ...(opts.fsm ? { fsm_state: 100, fsm_arc: 100 } : {}) },
        seed: opts.seed,
        budgetSeconds: opts.budgetSeconds,
      },
      { logger: silentLogger, signal: new AbortController().signal },
    );
    const proven = run.holes.filter((h) => isFormalKind(h.kind) && h.proof);
    const violations: string[] = [];
    if (proven.length) {
      // The support testbench names the DUT `uut`.
      const points = await measureTestbench(rtlFiles, top, randomTestbench(topOf(files, top), opts.cycles, opts.seed));
      violations.push(...provenHits(proven, points, instance, 'uut'));
    }
    return tally(item.id, proven, run.closed, violations, started);
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
  const corpus = resolve(arg('--corpus') ?? corpusPath('verilog-eval-ecov', 'verilog-eval-ecov.jsonl'));
  const only = arg('--only')?.split(',');
  const itemsFile = arg('--items');
  if (itemsFile)
    return realIp(resolve(itemsFile), only, {
      budgetSeconds: Number(arg('--budget') ?? 30),
      randomSeconds: Number(arg('--random-seconds') ?? 60),
      randomCycles: arg('--random-cycles') === undefined ? undefined : Number(arg('--random-cycles')),
      seed: Number(arg('--seed') ?? 1),
    });
  let items = corpusItems(corpus).filter((i) => !only || only.some((o) => i.id.includes(o)));
  const limit = Number(arg('--limit') ?? 0);
  if (limit > 0) items = items.slice(0, limit);
  const opts = {
    budgetSeconds: Number(arg('--budget') ?? 30),
    cycles: Number(arg('--cycles') ?? 20_000),
    seed: Number(arg('--seed') ?? 1),
    fsm: args.includes('--fsm'),
  };
  const out: ItemSoundness[] = [];
  for (const item of items) {
    const r = await checkItem(item, opts);
    out.push(r);
    process.stdout.write(
      `${r.id}: ${r.induction} by induction, ${r.analysis} by analysis, closed ${r.closed}, ${r.violations.length} violation(s)${r.violations.length ? `: ${r.violations.join('; ')}` : ''} (${(r.ms / 1000).toFixed(1)} s)\n`,
    );
  }
  const claims = out.reduce((n, r) => n + r.induction + r.analysis, 0);
  const bad = out.reduce((n, r) => n + r.violations.length, 0);
  process.stdout.write(
    `\n${out.length} item(s), ${claims} point(s) proven unreachable in runs, ${bad} hit by ${opts.cycles} random cycles.\n`,
  );
  process.exitCode = bad ? 1 : 0;
}

async function realIp(
  path: string,
  only: string[] | undefined,
  opts: { budgetSeconds: number; randomSeconds: number; randomCycles?: number | undefined; seed: number },
): Promise<void> {
  const parsed = parseItems(readFileSync(path, 'utf8'), dirname(path));
  const items = parsed.flatMap((l) => (l.ok && l.item.design && (!only || only.includes(l.item.id)) ? [l.item] : []));
  const out: ItemSoundness[] = [];
  for (const item of items) {
    const r = await checkDesignItem(item, opts);
    out.push(r);
    process.stdout.write(
      `${r.id}: ${r.induction} by induction, ${r.analysis} by analysis, closed ${r.closed}, ${r.cycles ?? 0} random cycles, ${r.violations.length} violation(s)${r.violations.length ? `: ${r.violations.join('; ')}` : ''} (${(r.ms / 1000).toFixed(1)} s)\n`,
    );
  }
  const claims = out.reduce((n, r) => n + r.induction + r.analysis, 0);
  const bad = out.reduce((n, r) => n + r.violations.length, 0);
  process.stdout.write(
    `\n${out.length} item(s), ${claims} point(s) proven unreachable in runs, ${bad} hit by random simulation.\n`,
  );
  process.exitCode = bad ? 1 : 0;
}

if (require.main === module) void main();
