/**
 * Where the corpus of real designs is (real-ip, real-ip-2, verilog-eval-ecov): the one place every test and bench
 * asks. In order: `CHORUS_CORPUS` when set (a folder holding the three; it must exist, it is never passed over),
 * else `../shared/corpus` beside the checkout when present, else the corpus `npm run corpus` built into
 * `.cache/corpus` (only once that build completed). With none of them the suite fails with the command to run.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repoRoot = resolve(__dirname, '..', '..');

/** The command that builds the corpus (scripts/corpus.ts); the errors below name it. */
export const CORPUS_COMMAND = 'npm run corpus';
/** Where `npm run corpus` builds the corpus by default (gitignored). */
export const BUILT_CORPUS = join(repoRoot, '.cache', 'corpus');
/** Written last by `npm run corpus`: a folder without it is a build that did not finish. */
export const COMPLETE_MARKER = '.complete';
/** The corpora the suite reads, each a folder of the corpus. */
export const CORPORA = ['real-ip', 'real-ip-2', 'verilog-eval-ecov'] as const;
export type CorpusName = (typeof CORPORA)[number];

export interface CorpusLocation {
  root: string;
  /** How it was found, for messages. */
  from: 'CHORUS_CORPUS' | '../shared/corpus' | 'npm run corpus';
}

export interface LocateOptions {
  env?: NodeJS.ProcessEnv;
  /** The checkout whose `../shared/corpus` and `.cache/corpus` are looked at. */
  checkout?: string;
}

function noCorpus(detail: string): Error {
  return new Error(
    `${detail} Run \`${CORPUS_COMMAND}\` (it fetches the designs from their public repositories at pinned commits ` +
      `into .cache/corpus), or set CHORUS_CORPUS to a folder holding ${CORPORA.join(', ')}.`,
  );
}

/** The corpus this run uses; throws an error naming the command to run when there is none. */
export function locateCorpus(opts: LocateOptions = {}): CorpusLocation {
  const env = opts.env ?? process.env;
  const checkout = opts.checkout ?? repoRoot;
  const fromEnv = env.CHORUS_CORPUS?.trim();
  if (fromEnv) {
    const root = resolve(checkout, fromEnv);
    if (!existsSync(root)) throw noCorpus(`CHORUS_CORPUS names ${root}, which does not exist.`);
    return { root, from: 'CHORUS_CORPUS' };
  }
  const shared = resolve(checkout, '..', 'shared', 'corpus');
  if (existsSync(shared)) return { root: shared, from: '../shared/corpus' };
  const built = join(checkout, '.cache', 'corpus');
  if (existsSync(join(built, COMPLETE_MARKER))) return { root: built, from: 'npm run corpus' };
  const partial = existsSync(built) ? ` ${built} is there but its build did not finish.` : '';
  throw noCorpus(`No corpus of real designs: CHORUS_CORPUS is not set, ${shared} does not exist.${partial}`);
}

/**
 * A path in the corpus (`corpusPath('real-ip', 'items.jsonl')`); throws, naming the corpus and the command, when
 * it is missing there.
 */
export function corpusPath(corpus: CorpusName, ...parts: string[]): string {
  const at = locateCorpus();
  const path = join(at.root, corpus, ...parts);
  if (!existsSync(path)) throw noCorpus(`${path} is missing from the corpus at ${at.root} (found by ${at.from}).`);
  return path;
}
