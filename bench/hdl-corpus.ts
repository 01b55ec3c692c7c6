/**
 * DUT analysis against Verilator on every item of the verilog-eval ECov corpus: each item's RTL goes through
 * `analyzeSources` and through `verilator --xml-only`, and the top module's ports (names, order, directions,
 * packed widths) must agree. Run: `npx tsx bench/hdl-corpus.ts [corpus.jsonl]`.
 *
 * The corpus is read where it lies (never copied into the repository); the RTL is written to a temp folder
 * only for Verilator.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeSources, moduleByName } from '../src/hdl';
import { verilatorPorts } from './hdl-verilator-xml';
import { corpusPath } from '../test/helpers/corpus';

interface Item {
  id: string;
  rtl_files: { name: string; content: string }[];
  dut_module_name: string;
}

function main(): void {
  const corpus = process.argv[2] ?? corpusPath('verilog-eval-ecov', 'verilog-eval-ecov.jsonl');
  const items = readFileSync(corpus, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Item);
  const started = performance.now();
  // Loading the grammar happens once per process; it is reported apart from the per-item analysis.
  const loadStart = performance.now();
  analyzeSources([{ name: 'warm.sv', content: 'module warm; endmodule\n' }]);
  const grammarLoadMs = performance.now() - loadStart;
  const work = mkdtempSync(join(tmpdir(), 'chorus-hdl-corpus-'));
  let analysisMs = 0;
  let verilatorMs = 0;
  let lines = 0;
  let agree = 0;
  let topRight = 0;
  const problems: string[] = [];
  try {
    for (const [n, item] of items.entries()) {
      lines += item.rtl_files.reduce((s, f) => s + f.content.split('\n').length, 0);
      const t0 = performance.now();
      const analysis = analyzeSources(item.rtl_files);
      analysisMs += performance.now() - t0;
      if (analysis.top === item.dut_module_name) topRight++;
      const mine = moduleByName(analysis, item.dut_module_name);
      const dir = join(work, String(n));
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      for (const f of item.rtl_files) writeFileSync(join(dir, f.name), f.content);
      const t1 = performance.now();
      const theirs = verilatorPorts(
        dir,
        item.rtl_files.map((f) => f.name),
        item.dut_module_name,
      );
      verilatorMs += performance.now() - t1;
      const issues: string[] = [];
      if (analysis.errors.length)
        issues.push(`syntax errors: ${analysis.errors.map((e) => `${e.line}:${e.column} ${e.message}`).join('; ')}`);
      if (!mine) issues.push(`module ${item.dut_module_name} not found`);
      if (typeof theirs === 'string') issues.push(theirs);
      else if (mine) {
        const a = mine.ports.map((p) => `${p.direction} ${p.name}[${p.width}]`).join(', ');
        const b = theirs.map((p) => `${p.direction} ${p.name}[${p.width}]`).join(', ');
        if (a !== b) issues.push(`ports differ:\n    chorus:    ${a}\n    verilator: ${b}`);
      }
      if (issues.length) problems.push(`${item.id}: ${issues.join('\n  ')}`);
      else agree++;
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  for (const p of problems) console.log(p);
  console.log(
    JSON.stringify(
      {
        items: items.length,
        agree,
        disagree: items.length - agree,
        topFound: topRight,
        rtlLines: lines,
        grammarLoadMs: Math.round(grammarLoadMs),
        analysisMs: Math.round(analysisMs),
        analysisMsPerItem: +(analysisMs / items.length).toFixed(2),
        verilatorMs: Math.round(verilatorMs),
        totalMs: Math.round(performance.now() - started),
      },
      null,
      2,
    ),
  );
  process.exitCode = agree === items.length ? 0 : 1;
}

main();
