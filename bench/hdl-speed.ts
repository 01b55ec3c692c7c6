/**
 * Speed of DUT analysis on a 10,000-line file (renamed copies of the example DUTs): tree-sitter parse alone,
 * parse + full analysis of a file never seen before, re-analysis after a one-line edit (the editor's case:
 * the previous tree is reused), and a cached re-analysis of unchanged text. Medians of several runs in one
 * process, as wall-clock and as this process's CPU time (steadier when other work shares the cores). Last,
 * tree-sitter alone on 10,000 lines of copies of each example, since its speed depends on the code.
 * Run: `npx tsx bench/hdl-speed.ts [lines] [runs]`.
 */
import { analyzeSources } from '../src/hdl';
import { parseText } from '../src/hdl/parser';
import { bigDesign, EXAMPLES } from './hdl-big-design';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Sample {
  wall: number;
  cpu: number;
}

function measure(f: () => void): Sample {
  const w = performance.now();
  const c = cpuMs();
  f();
  return { wall: performance.now() - w, cpu: cpuMs() - c };
}

function main(): void {
  const lines = Number(process.argv[2] ?? 10_000);
  const runs = Number(process.argv[3] ?? 15);
  const { text, copies } = bigDesign(lines);
  const actualLines = text.split('\n').length - 1;
  parseText('module warm; endmodule'); // loading the grammar is a one-time cost, not part of a parse
  analyzeSources([{ name: 'warm.sv', content: text }]);

  const parse: Sample[] = [];
  const full: Sample[] = [];
  const edited: Sample[] = [];
  const cached: Sample[] = [];
  const middle = text.indexOf('\n', text.length >> 1) + 1;
  analyzeSources([{ name: 'edited.sv', content: text }]);
  for (let i = 0; i < runs; i++) {
    // a distinct trailing comment and file name: no cached analysis and no previous tree to reuse
    const content = `${text}// run ${i}\n`;
    parse.push(measure(() => parseText(content)));
    full.push(measure(() => analyzeSources([{ name: `big-${i}.sv`, content }])));
    cached.push(measure(() => analyzeSources([{ name: `big-${i}.sv`, content }])));
    // one line typed in the middle of the file the editor already analysed
    const typed = `${text.slice(0, middle)}    // edit ${i}\n${text.slice(middle)}`;
    edited.push(measure(() => analyzeSources([{ name: 'edited.sv', content: typed }])));
  }
  // What tree-sitter alone costs depends on the code: expression-heavy RTL builds deeper trees.
  const parseByDesign: Record<string, { bytes: number; wallMs: number; cpuMs: number }> = {};
  for (const name of EXAMPLES) {
    const one = bigDesign(lines, [name]).text;
    const xs = Array.from({ length: runs }, (_, i) => measure(() => parseText(`${one}// run ${i}\n`)));
    parseByDesign[name] = {
      bytes: one.length,
      wallMs: +median(xs.map((x) => x.wall)).toFixed(1),
      cpuMs: +median(xs.map((x) => x.cpu)).toFixed(1),
    };
  }
  const stats = (xs: Sample[]) => ({
    wallMs: +median(xs.map((x) => x.wall)).toFixed(1),
    cpuMs: +median(xs.map((x) => x.cpu)).toFixed(1),
  });
  const p = stats(parse);
  const f = stats(full);
  console.log(
    JSON.stringify(
      {
        lines: actualLines,
        bytes: text.length,
        modules: copies,
        runs,
        parse: p,
        parseAndAnalysis: f,
        analysisOverParseCpu: +(f.cpuMs / p.cpuMs).toFixed(2),
        afterOneLineEdit: stats(edited),
        cachedWallMs: +median(cached.map((x) => x.wall)).toFixed(2),
        parseAloneByDesign: parseByDesign,
      },
      null,
      2,
    ),
  );
}

main();
