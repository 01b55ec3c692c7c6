/**
 * Speed of DUT analysis on a 10,000-line file (renamed copies of the example DUTs): tree-sitter parse alone,
 * parse + full analysis with a cold cache, and a cached re-analysis. Medians of several runs in one process,
 * as wall-clock and as this process's CPU time (steadier when other work shares the cores).
 * Run: `npx tsx bench/hdl-speed.ts [lines] [runs]`.
 */
import { analyzeSources } from '../src/hdl';
import { parseText } from '../src/hdl/parser';
import { bigDesign } from './hdl-big-design';

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
  const cached: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    // a distinct trailing comment defeats the content cache: every run is a cold analysis
    const content = `${text}// run ${i}\n`;
    parse.push(measure(() => parseText(content)));
    full.push(measure(() => analyzeSources([{ name: 'big.sv', content }])));
    cached.push(measure(() => analyzeSources([{ name: 'big.sv', content }])));
  }
  const stats = (xs: Sample[]) => ({ wallMs: +median(xs.map((x) => x.wall)).toFixed(1), cpuMs: +median(xs.map((x) => x.cpu)).toFixed(1) });
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
        cachedWallMs: +median(cached.map((x) => x.wall)).toFixed(2),
      },
      null,
      2,
    ),
  );
}

main();
