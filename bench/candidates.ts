// Candidates per round on a local model: wall time per round and prompt tokens evaluated per round for
// K = 1, 2, 4 candidates. On a CPU the K candidates take turns on one context sequence and share its KV cache, so
// the round's prompt is evaluated once, not K times; the `K sequences` rows give each candidate its own sequence
// (what a GPU does, generating side by side) for comparison, where each evaluates the prompt.
// Usage: node --import tsx bench/candidates.ts [--model file.gguf] [--rounds 2] [--reply-tokens 48] [--threads 1]
// Without --model it uses the tiny random-weight test model (test/fixtures/llm/make-tiny-gguf.ts): its replies hold
// no code, so nothing is built and the times are the model's alone.
import { basename, join, resolve } from 'node:path';
import { generateToEnd } from '../src/engine';
import { LocalBackend } from '../src/llm';
import { silentLogger, type LoopEvent } from '../src/protocol';
import { makeTinyGguf } from '../test/fixtures/llm/make-tiny-gguf';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const rounds = Number(arg('--rounds', '2'));
const replyTokens = Number(arg('--reply-tokens', '48'));
const threads = Number(arg('--threads', '1'));
const counter = resolve('examples', 'counter', 'counter.sv');

interface Row {
  label: string;
  k: number;
  roundMs: number[];
  evaluated: number[];
  promptTokens: number;
}

async function measure(modelPath: string, k: number, sequences: number): Promise<Row> {
  // 8,192 tokens: the tiny model's byte-level tokenizer makes the RTL prompt about 3,000 tokens.
  const backend = new LocalBackend({
    modelPath,
    logger: silentLogger,
    gpu: false,
    threads,
    cpuSequences: sequences,
    contextSize: 8192,
  });
  try {
    await backend.load();
    const started = new Map<number, number>();
    const roundMs: number[] = [];
    const evaluated: number[] = [];
    let promptTokens = 0;
    const onEvent = (e: LoopEvent) => {
      if (e.type === 'roundStart') started.set(e.round, Date.now());
      if (e.type === 'roundEnd') {
        roundMs.push(Date.now() - (started.get(e.round.index) ?? Date.now()));
        evaluated.push(e.round.promptTokens ?? 0);
      }
    };
    // The opening prompt's size, as the model counts it: what one candidate evaluates on a cold sequence.
    const wrap = backend.countTokens.bind(backend);
    backend.countTokens = async (messages, signal) => {
      const n = await wrap(messages, signal);
      promptTokens = Math.max(promptTokens, n);
      return n;
    };
    await generateToEnd(
      {
        rtlFiles: [counter],
        engine: 'llm',
        targets: { line: 100 },
        rounds,
        stallRounds: 100,
        seed: 1,
        candidates: k,
        parseRetries: 0,
        sampling: { maxTokens: replyTokens, temperature: 0.7 },
        workDir: join(process.env.TMPDIR ?? '/tmp', `chorus-bench-candidates-${process.pid}-${k}-${sequences}`),
      },
      { logger: silentLogger, signal: new AbortController().signal, backend },
      onEvent,
    );
    return {
      label: sequences === 1 ? `K = ${k}, one sequence` : `K = ${k}, ${sequences} sequences`,
      k,
      roundMs,
      evaluated,
      promptTokens,
    };
  } finally {
    await backend.dispose();
  }
}

async function main(): Promise<void> {
  const modelPath = resolve(arg('--model', await makeTinyGguf()));
  const rows: Row[] = [];
  for (const k of [1, 2, 4]) rows.push(await measure(modelPath, k, 1));
  for (const k of [2, 4]) rows.push(await measure(modelPath, k, k));
  const out = [
    `model ${basename(modelPath)}, CPU, ${threads} thread(s), ${1 + rounds} rounds, ${replyTokens}-token replies, largest round prompt ${rows[0].promptTokens} tokens`,
    '',
    '| candidates | wall time per round (ms) | prompt tokens evaluated per round |',
    '|---|---|---|',
    ...rows.map((r) => `| ${r.label} | ${r.roundMs.join(' / ')} | ${r.evaluated.join(' / ')} |`),
  ];
  console.log(out.join('\n'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
