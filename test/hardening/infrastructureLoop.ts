// Run by infrastructure.test.ts inside a private mount namespace: the model loop on fifo.sv with a recorded reply,
// its build cache at argv[2]. Prints what the loop did as JSON: how often the model was asked, the feedback it was
// given, and how the run ended.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { openBackend, type ChatBackend } from '../../src/llm';
import { ChorusError, silentLogger, type LoopEvent } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { replayModel } from '../helpers/replay';

async function main(cacheDir: string, candidates: number): Promise<void> {
  const recorded = JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as {
    responses: string[];
  };
  const replay = await openBackend(replayModel(Array.from({ length: 8 }, () => recorded.responses[0])), {
    logger: silentLogger,
  });
  let chats = 0;
  const backend: ChatBackend = {
    label: replay.label,
    kind: replay.kind,
    chat: (m, o) => (chats++, replay.chat(m, o)),
    dispose: () => replay.dispose(),
  };
  const events: LoopEvent[] = [];
  let ended: { kind: string; message: string } | { stopReason: string };
  try {
    const r = await generateToEnd(
      {
        rtlFiles: [join(repoRoot, 'examples', 'fifo', 'fifo.sv')],
        engine: 'llm',
        formal: false,
        rounds: 2,
        candidates,
        targets: { line: 100 },
      },
      { logger: silentLogger, signal: new AbortController().signal, backend, cacheDir },
      (e) => events.push(e),
    );
    ended = { stopReason: r.stopReason };
  } catch (err) {
    ended =
      err instanceof ChorusError
        ? { kind: err.kind, message: err.message }
        : { kind: 'unclassified', message: String(err) };
  }
  const feedback = events.flatMap((e) => (e.type === 'feedback' ? [e.text] : []));
  const builds = events.flatMap((e) => (e.type === 'build' ? [e.status] : []));
  process.stdout.write(`${JSON.stringify({ chats, feedback, builds, ended })}\n`);
}

void main(process.argv[2], Number(process.argv[3] ?? 1));
