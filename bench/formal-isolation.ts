/**
 * What the search for rejected instrumentation sites costs on a real design: every if/case arm of the top's files
 * gets a flag; chosen flags are made to fail (each read is a real Yosys read, its result replaced when it holds a
 * chosen flag) — one named in the error, one found by halving, three found by halving. Prints reads and times,
 * beside one read of the whole copy and eight shallow proofs for scale (docs/formal.md).
 *
 *   node --import tsx bench/formal-isolation.ts --top <module> [--inc <dir>] <file>...
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeSources } from '../src/hdl';
import { instrument, isolateSites, type FormalTarget } from '../src/formal';
import { YosysWorker, type FileTree, type YosysOutput } from '../src/formal/worker';
import { slangFrontEnd } from '../src/formal/runtime';
import { silentLogger } from '../src/protocol';
import { listedNames, prepScript, proofScript } from '../src/formal/yosys';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { top: { type: 'string' }, inc: { type: 'string' } },
    allowPositionals: true,
  });
  const top = values.top;
  if (!top || !positionals.length) throw new Error('usage: --top <module> [--inc <dir>] <file>...');
  const sources = positionals.map((f) => ({ file: f, content: readFileSync(f, 'utf8') }));
  const analysis = analyzeSources(
    sources.map((s) => ({ name: s.file, content: s.content })),
    { top },
  );
  const targets: FormalTarget[] = analysis.modules.flatMap((m) =>
    m.sites
      .filter((s) => s.kind === 'if' || s.kind === 'case_item' || s.kind === 'case_default')
      .map((s) => ({
        file: m.file,
        line: s.range.startLine,
        column: s.kind === 'if' ? 0 : s.range.startColumn,
        kind: 'line' as const,
        comment: s.kind === 'if' ? 'if' : 'case',
      })),
  );
  const headers: FileTree = {};
  if (values.inc) {
    const dir: FileTree = {};
    for (const e of readdirSync(values.inc))
      if (/\.(vh|svh|v|sv)$/.test(e)) dir[e] = readFileSync(join(values.inc, e), 'utf8');
    headers.inc0 = dir;
  }
  const inst = instrument(analysis, sources, targets);
  const flags = [...new Set(inst.flags.flatMap((f) => ('flag' in f ? [f.flag] : [])))];
  const names = sources.map((s, i) => `src${i}_${basename(s.file).replace(/[^\w.-]/g, '_')}`);
  const treeOf = (files: Map<string, string>): FileTree => {
    const tree: FileTree = { ...headers };
    sources.forEach((s, i) => (tree[names[i]] = files.get(s.file) ?? s.content));
    return tree;
  };
  // The front end formal runs use here: slang when a runtime runs it, else Yosys 0.55's read_verilog.
  const slang = await slangFrontEnd(silentLogger);
  const worker = new YosysWorker({
    signal: new AbortController().signal,
    deadlineMs: 3_600_000,
    memoryMb: 4096,
    slang,
  });
  const frontEnd: 'slang' | 'verilog' = slang ? 'slang' : 'verilog';
  const input = { files: names, top, defines: {}, includeDirs: values.inc ? ['inc0'] : [], parameters: {}, frontEnd };
  const times: number[] = [];
  const read = async (files: Map<string, string>) => {
    const t0 = Date.now();
    const r = await worker.run(['-p', prepScript({ ...input, mapMemories: false })], treeOf(files));
    times.push(Date.now() - t0);
    return r;
  };
  const out: string[] = [`${top}: ${targets.length} arms, ${flags.length} flags`];
  try {
    const full = await read(inst.files);
    out.push(`one read of every flag: ${times[0]} ms (exit ${full.code})`);
    if (full.code === 0) {
      const wires = listedNames(full.files['flags.txt']).slice(0, 8);
      const t0 = Date.now();
      const calls = wires.map((wire, i) => ({ wire, log: `l${i}.log` }));
      await worker.run(['-q', '-p', proofScript(calls, 4, 10)], { 'prepared.il': full.files['prepared.il'] });
      out.push(`${wires.length} shallow proofs (depth 4): ${Date.now() - t0} ms`);
    }
    const at = (share: number) => flags[Math.min(flags.length - 1, Math.floor(flags.length * share))];
    const cases: [string, string[], boolean][] = [
      ['one bad site, named', [at(0.7)], true],
      ['one bad site, by halving', [at(0.7)], false],
      ['three bad sites, by halving', [at(0.05), at(0.5), at(0.95)], false],
    ];
    for (const [label, bad, named] of cases) {
      times.length = 0;
      const t0 = Date.now();
      const readSet = async (enabled: ReadonlySet<string>): Promise<YosysOutput> => {
        const r = await read(inst.render(enabled));
        const b = bad.find((f) => enabled.has(f));
        return b ? { code: 1, log: `ERROR: made to fail for signal \\${b}`, files: {} } : r;
      };
      const first = await readSet(new Set(flags));
      const found = await isolateSites(
        flags,
        first,
        readSet,
        (log) => (named ? (log.match(/chorus_flag_\d+/g) ?? []) : []),
        (log) => log,
      );
      const mean = Math.round(times.reduce((a, b) => a + b, 0) / Math.max(1, times.length));
      out.push(
        'failure' in found
          ? `${label}: ${found.failure}`
          : `${label}: ${found.reads} reads, ${found.dropped.size} left out (${bad.length} bad), ${found.enabled.size} kept, ${Date.now() - t0} ms (${mean} ms a read)`,
      );
    }
  } finally {
    worker.close();
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

void main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
});
