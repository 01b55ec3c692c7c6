/**
 * Holes a parameter disables, listed and proven: for one real-IP item, the holes of a run at its default parameters
 * that a run of some variant (parameters changed, `-G` as a user gives them) hits are code the default
 * configuration disables. `--write` records them, with the variant that hit each, in a checked-in list; without it,
 * the list is checked: every listed hole must be proven unreachable by a run at the default parameters within its
 * budget (the formal stage on, as `generate` runs it).
 *
 *   node --import tsx bench/parameter-disabled.ts <corpus>/real-ip-2/items.jsonl --item cv32e40p_decoder \
 *     [--variant FPU=1 --variant A_EXTENSION=1,ZFINX=1 …] [--write corpus/real-ip-2/parameter-disabled/cv32e40p_decoder.json]
 *     [--budget 60] [--variant-budget 30] [--seed 1]
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { generateToEnd } from '../src/engine';
import { isFormalKind } from '../src/engine/closure/ledger';
import { silentLogger, type Hole } from '../src/protocol';
import { samePlace } from './formal-soundness';
import { designItem } from './item';

interface Listed {
  file: string;
  line: number;
  kind: string;
  detail: string;
  /** The variant whose run hit it. */
  hitWith: string;
}

interface ParameterDisabledList {
  item: string;
  note: string;
  variants: string[];
  holes: Listed[];
}

const key = (h: { file: string; line: number; kind: string; detail: string }) =>
  `${basename(h.file)}:${h.line} ${h.kind} ${h.detail}`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const items = args[0];
  const id = opt('--item');
  if (!items || !id)
    throw new Error(
      'usage: bench/parameter-disabled.ts <items.jsonl> --item <id> [--variant P=V …] [--write list.json]',
    );
  const variants = args.flatMap((a, i) => (a === '--variant' ? [args[i + 1]] : []));
  const write = opt('--write');
  const budget = Number(opt('--budget') ?? 60);
  const variantBudget = Number(opt('--variant-budget') ?? 30);
  const seed = Number(opt('--seed') ?? 1);
  const { item, design } = await designItem(items, id);
  const signal = new AbortController().signal;
  const run = (parameters: Record<string, string>, budgetSeconds: number) =>
    generateToEnd(
      {
        ...design,
        parameters: { ...design.parameters, ...parameters },
        top: item.dut_module_name,
        engine: 'random',
        targets: { line: 100, branch: 100 },
        seed,
        budgetSeconds,
      },
      { logger: silentLogger, signal },
    );
  const t0 = Date.now();
  const base = await run({}, budget);
  const baseMs = Date.now() - t0;
  const holes = base.holes.filter((h) => isFormalKind(h.kind));
  const proven = new Set(holes.filter((h) => h.proof).map(key));
  process.stdout.write(
    `${id} at its default parameters: ${holes.length} line/branch hole(s), ${proven.size} proven unreachable, closed ${base.closed === true} (${(baseMs / 1000).toFixed(1)} s)\n`,
  );
  if (write) {
    const listed: Listed[] = [];
    for (const v of variants) {
      // `A=1` or several at once, `A=1,B=2` (a corpus item's own variant).
      const overrides = Object.fromEntries(v.split(',').map((kv) => kv.split('=') as [string, string]));
      const t = Date.now();
      const r = await run(overrides, variantBudget).catch((err: unknown) => {
        // A combination the design rejects (its own check) hits nothing; the others still count.
        process.stdout.write(`  ${v}: ${err instanceof Error ? err.message : String(err)}\n`);
        return undefined;
      });
      if (!r) continue;
      const hit = holes.filter(
        (h: Hole) =>
          !listed.some((l) => key(l) === key(h)) && r.points.some((p) => p.count > 0 && samePlace(h, p, 'uut', 'uut')),
      );
      for (const h of hit)
        listed.push({ file: basename(h.file), line: h.line, kind: h.kind, detail: h.detail, hitWith: v });
      process.stdout.write(`  ${v}: hits ${hit.length} more of them (${((Date.now() - t) / 1000).toFixed(1)} s)\n`);
    }
    const list: ParameterDisabledList = {
      item: id,
      note: 'Written by bench/parameter-disabled.ts --write: holes of a run at the default parameters that a run with one parameter changed hits (hitWith).',
      variants,
      holes: listed.sort((a, b) => key(a).localeCompare(key(b))),
    };
    mkdirSync(dirname(resolve(write)), { recursive: true });
    writeFileSync(resolve(write), `${JSON.stringify(list, null, 2)}\n`);
    process.stdout.write(`${listed.length} hole(s) a parameter disables: ${write}\n`);
  }
  const listPath = write ?? opt('--list');
  if (!listPath || !existsSync(resolve(listPath))) return;
  const list = JSON.parse(readFileSync(resolve(listPath), 'utf8')) as ParameterDisabledList;
  const notProven = list.holes.filter((l) => !proven.has(key(l)));
  process.stdout.write(
    `${list.holes.length - notProven.length} of ${list.holes.length} listed hole(s) proven unreachable in a ${budget} s run${notProven.length ? `; not proven: ${notProven.map(key).join('; ')}` : ''}\n`,
  );
  process.exitCode = notProven.length ? 1 : 0;
}

void main();
