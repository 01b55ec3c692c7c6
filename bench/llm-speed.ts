// Local model speed: prompt and generation tokens/s, and the prompt tokens each closure round evaluates with the KV
// cache reused across rounds (one warm backend) and without (a fresh backend per round). Rounds follow the engine's
// Markov context: [system, user (RTL + spec), best reply so far, its feedback].
// Usage: node --import tsx bench/llm-speed.ts [--model file.gguf] [--rounds 3] [--reply-tokens 64] [--threads 1,2]
// Without --model it uses the tiny random-weight test model (test/fixtures/llm/make-tiny-gguf.ts).
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { LocalBackend, modelInfo } from '../src/llm';
import { silentLogger, type ChatMessage } from '../src/protocol';
import { makeTinyGguf } from '../test/fixtures/llm/make-tiny-gguf';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(name);
  return i >= 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const rounds = Number(arg('--rounds', '3'));
const replyTokens = Number(arg('--reply-tokens', '64'));
const threadCounts = arg('--threads', '1,2').split(',').map(Number);

const file = (p: string) => readFileSync(resolve(p), 'utf8');
const opening: ChatMessage[] = [
  {
    role: 'system',
    content:
      'You are an expert in SystemVerilog verification. Write one testbench that drives the design to maximal line, toggle, FSM and branch coverage. Answer with a line `filename: tb_<name>.sv` and exactly one systemverilog code block. Stimulus only: no checks, no assertions.',
  },
  {
    role: 'user',
    content: `<context>\n// File: counter.sv\n${file('examples/counter/counter.sv')}\n// File: counter.md\n${file('examples/counter/counter.md')}\n</context>\n<instructions>\nTop module: counter. Instance name: uut. Aim for full line, toggle, FSM and branch coverage. No assertions.\n</instructions>\nWrite the testbench now.`,
  },
];
const feedback = (round: number) =>
  `Response parse result:\n- status: ok\nEDA result:\n- status: ok\n- stage: simulation\n- line coverage: ${50 + round * 10}%\n- uncovered: counter.sv:${20 + round} (if branch not taken)\nInstruction for next round:\n- improve coverage toward 100%`;

interface RoundRow {
  round: number;
  promptTokens: number;
  reused: number;
  fresh: number;
  msReused: number;
  msFresh: number;
}

async function speed(
  modelPath: string,
  threads: number,
): Promise<{ promptTps: number; genTps: number; promptTokens: number; completion: number }> {
  const b = new LocalBackend({ modelPath, logger: silentLogger, gpu: false, threads });
  try {
    await b.load();
    const start = performance.now();
    let first = 0;
    let last = 0;
    const r = await b.chat(opening, {
      maxTokens: 128,
      seed: 1,
      onToken: () => {
        last = performance.now();
        if (!first) first = last;
      },
    });
    return {
      promptTps: r.usage.evaluatedPromptTokens / ((first - start) / 1000),
      genTps: (r.usage.completionTokens - 1) / ((last - first) / 1000),
      promptTokens: r.usage.evaluatedPromptTokens,
      completion: r.usage.completionTokens,
    };
  } finally {
    await b.dispose();
  }
}

async function roundsTable(modelPath: string, threads: number): Promise<RoundRow[]> {
  const warm = new LocalBackend({ modelPath, logger: silentLogger, gpu: false, threads });
  const rows: RoundRow[] = [];
  try {
    await warm.load();
    let best = '';
    for (let round = 1; round <= rounds; round++) {
      const messages =
        round === 1
          ? opening
          : [
              ...opening,
              { role: 'assistant' as const, content: best },
              { role: 'user' as const, content: feedback(round - 1) },
            ];
      let t = performance.now();
      const reused = await warm.chat(messages, { maxTokens: replyTokens, seed: round });
      const msReused = performance.now() - t;
      const cold = new LocalBackend({ modelPath, logger: silentLogger, gpu: false, threads });
      await cold.load();
      t = performance.now();
      const fresh = await cold.chat(messages, { maxTokens: replyTokens, seed: round });
      const msFresh = performance.now() - t;
      await cold.dispose();
      rows.push({
        round,
        promptTokens: reused.usage.promptTokens,
        reused: reused.usage.evaluatedPromptTokens,
        fresh: fresh.usage.evaluatedPromptTokens,
        msReused,
        msFresh,
      });
      // The engine keeps the best reply; with random weights every reply is as good as another: keep round 1's.
      if (round === 1) best = reused.text;
    }
  } finally {
    await warm.dispose();
  }
  return rows;
}

async function main(): Promise<void> {
  const modelPath = resolve(arg('--model', await makeTinyGguf()));
  const info = await modelInfo(modelPath);
  const out: string[] = [];
  out.push(
    `Model: \`${basename(modelPath)}\` (${info.name ?? '?'}; ${info.architecture}, ${info.parameters?.toLocaleString('en-US') ?? '?'} parameters, ${info.quantization ?? '?'}), CPU, node-llama-cpp 3.21.1. Prompt: the counter example (RTL + spec) in the model's opening messages; replies of up to ${replyTokens} tokens.`,
    '',
    '| CPU threads | prompt tokens/s | generation tokens/s |',
    '|---:|---:|---:|',
  );
  for (const threads of threadCounts) {
    const s = await speed(modelPath, threads);
    out.push(`| ${threads} | ${s.promptTps.toFixed(0)} | ${s.genTps.toFixed(0)} |`);
  }
  const threads = threadCounts[0];
  const rows = await roundsTable(modelPath, threads);
  out.push(
    '',
    `Prompt tokens evaluated per round (${threads} thread${threads === 1 ? '' : 's'}): with reuse = one warm backend across rounds; without = a fresh context each round.`,
    '',
    '| round | prompt tokens | evaluated with reuse | evaluated without | round ms with reuse | round ms without |',
    '|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.round} | ${r.promptTokens} | ${r.reused} | ${r.fresh} | ${r.msReused.toFixed(0)} | ${r.msFresh.toFixed(0)} |`,
    ),
  );
  const later = rows.slice(1);
  if (later.length) {
    const saved = later.reduce((n, r) => n + r.fresh - r.reused, 0) / later.reduce((n, r) => n + r.fresh, 0);
    out.push('', `Rounds 2–${rounds}: reuse skipped ${(saved * 100).toFixed(1)}% of the prompt evaluation.`);
  }
  console.log(out.join('\n'));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
