// FSM coverage over every verilog-eval-ecov item with an FSM CHORUS's analysis finds: one random
// testbench per item (test/sim/fsmEcov.ts), measured on each Verilator given. Per Verilator: items, CHORUS's
// fsm_state/fsm_arc points and hits, Verilator's native FSM points (5.048+), how many native points CHORUS also
// has, and how many of those disagree on the count; line/branch totals and build+run time.
// Times are with the build cache's runtime objects warm (the default cache, or --cache DIR); each item's own
// model is a fresh build.
// Usage: nice -n 10 node --import tsx bench/fsm-coverage.ts [--verilator PATH]... [--cycles N] [--cache DIR]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { detectVerilator, measureCoverage } from '../src/sim';
import { ecovFsmItems, writeEcovBench } from '../test/sim/fsmEcov';

function args(name: string): string[] {
  return process.argv.flatMap((a, i) => (a === name && process.argv[i + 1] ? [process.argv[i + 1]] : []));
}

const verilators = args('--verilator').length ? args('--verilator') : ['verilator'];
const cycles = Number(args('--cycles')[0] ?? 300);
const items = ecovFsmItems();
const cache = args('--cache')[0];
const out = (line: string) => process.stdout.write(`${line}\n`);

async function main(): Promise<void> {
  out(
    '| Verilator | items | FSMs | states (hit/total) | arcs (hit/total) | native points | native ⊆ CHORUS | count mismatches | items with native FSM | line | branch | build+run (s) |',
  );
  out('|---|---|---|---|---|---|---|---|---|---|---|---|');
  for (const path of verilators) {
    const { version } = await detectVerilator(path);
    const work = mkdtempSync(join(tmpdir(), 'chorus-bench-fsm-'));
    const t = {
      items: 0,
      fsms: 0,
      sHit: 0,
      s: 0,
      aHit: 0,
      a: 0,
      native: 0,
      shared: 0,
      mismatch: 0,
      nativeItems: 0,
      lHit: 0,
      l: 0,
      bHit: 0,
      b: 0,
      ms: 0,
    };
    const failures: string[] = [];
    try {
      for (const item of items) {
        const { rtl, tb } = writeEcovBench(item, join(work, item.id), cycles);
        const fsms = item.fsms.map((f) => ({ ...f, file: rtl }));
        const started = performance.now();
        const r = await measureCoverage(
          { dutFiles: [rtl], testbench: tb, dutTop: 'RefModule', fsms },
          { verilatorPath: path, cacheDir: cache },
        );
        t.ms += performance.now() - started;
        if (r.status !== 'ok') {
          failures.push(
            `${item.id}: ${r.status} ${r.diagnostics
              .map((d) => d.message)
              .join('; ')
              .slice(0, 200)}`,
          );
          continue;
        }
        t.items++;
        t.fsms += fsms.length;
        for (const p of r.points) {
          const hit = p.count > 0 ? 1 : 0;
          if (p.kind === 'fsm_state') {
            t.s++;
            t.sHit += hit;
          } else if (p.kind === 'fsm_arc') {
            t.a++;
            t.aHit += hit;
          }
        }
        t.lHit += r.coverage.line.covered;
        t.l += r.coverage.line.total;
        t.bHit += r.coverage.branch.covered;
        t.b += r.coverage.branch.total;
        const native = r.nativeFsm ?? [];
        if (native.length) t.nativeItems++;
        for (const n of native) {
          t.native++;
          const mine = r.points.filter(
            (p) => p.kind === n.kind && p.comment === n.comment && p.hierarchy === n.hierarchy,
          );
          // A native point CHORUS lacks stays in the result as Verilator placed it: its line is the case's.
          const own = mine.filter((p) => p.module !== '');
          if (own.length === 1) {
            t.shared++;
            if (own[0].count !== n.count) {
              t.mismatch++;
              failures.push(`${item.id} ${n.comment}: CHORUS ${own[0].count}, Verilator ${n.count}`);
            }
          } else failures.push(`${item.id}: native ${n.kind} ${n.comment} not among CHORUS's points`);
        }
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
    out(
      `| ${version} | ${t.items}/${items.length} | ${t.fsms} | ${t.sHit}/${t.s} | ${t.aHit}/${t.a} | ${t.native} | ${t.shared}/${t.native} | ${t.mismatch} | ${t.nativeItems} | ${t.lHit}/${t.l} | ${t.bHit}/${t.b} | ${(t.ms / 1000).toFixed(1)} |`,
    );
    for (const f of failures) process.stderr.write(`  ${version}: ${f}\n`);
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
