/**
 * The consent rule for every file a command writes (`generate --out`, `generate --waivers`, `coverage --lcov`, `--cobertura`, the
 * files of `bench --out`): a file CHORUS did not write is replaced only with `--force`; an input of the run (a DUT source,
 * the testbench, a filelist, a spec) never, not even with `--force`, since that destroys what was being measured;
 * nor a symbolic link, folder, device or FIFO (renaming over one replaces it, it is not written through). A file
 * CHORUS wrote is known by how it begins, so only its first bytes are read. Callers check before the run, so a
 * refusal comes before minutes of work, and again when writing.
 */
import { constants } from 'node:fs';
import { lstat, open, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ChorusError } from '../protocol';
import { GENERATED_MARKER, writeFileAtomic } from './fs';
import { COBERTURA_HEADER } from '../sim';
import { SUMMARY_JSON_HEADER, SUMMARY_MD_HEADER } from './summaries';
import { VLT_HEADER } from './waivers/exports';
import { IMC_HEADER, URG_HEADER } from './waivers/signoffExports';
import { WAIVER_HEADER } from './waivers/file';

/** How each output CHORUS writes begins. */
const SIGNATURES = {
  testbench: GENERATED_MARKER,
  lcov: 'TN:chorus\n',
  cobertura: COBERTURA_HEADER,
  benchSummary: '# chorus bench',
  waivers: WAIVER_HEADER,
  vlt: VLT_HEADER,
  urgEl: URG_HEADER,
  imcTcl: IMC_HEADER,
  summaryJson: SUMMARY_JSON_HEADER,
  summaryMd: SUMMARY_MD_HEADER,
} as const;

export type OutputKind = keyof typeof SIGNATURES;

export interface OutputTarget {
  /** Absolute. */
  path: string;
  /** The option that named it, for messages: `--lcov`. */
  option: string;
  kind: OutputKind;
  force: boolean;
  /** The run's input files (any spelling): never a target. */
  inputs?: string[];
}

/** True when the regular file at `path` begins with `prefix` (opened non-blocking: a FIFO swapped in never hangs). */
async function beginsWith(path: string, prefix: string): Promise<boolean> {
  const file = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    if (!(await file.stat()).isFile()) return false;
    const head = Buffer.alloc(Buffer.byteLength(prefix));
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).toString('utf8') === prefix;
  } finally {
    await file.close();
  }
}

/** Refuses a target that is one of `inputs` (the same file by device and inode: another spelling or a hard link too). */
async function refuseInput(path: string, inputs: string[], option: string): Promise<void> {
  const target = await stat(path).catch(() => undefined);
  if (!target) return;
  for (const input of inputs) {
    const s = await stat(input).catch(() => undefined);
    if (s && s.dev === target.dev && s.ino === target.ino) {
      throw new ChorusError(
        'bad_input',
        `This is an input of the run (${input}): ${option} never replaces one, not even with --force; choose another path for ${option}.`,
        { file: path },
      );
    }
  }
}

/** Refuses a target the rule above forbids (the location names it). */
export async function checkOutputTarget(t: OutputTarget): Promise<void> {
  const s = await lstat(t.path).catch(() => undefined);
  if (!s) return;
  if (s.isSymbolicLink()) {
    const real = await realpath(t.path).catch(() => undefined);
    throw new ChorusError(
      'bad_input',
      `A symbolic link${real ? ` to ${real}` : ''}: pass the file itself as ${t.option}.`,
      { file: t.path },
    );
  }
  if (!s.isFile())
    throw new ChorusError('bad_input', `Not a regular file: choose a file path for ${t.option}.`, { file: t.path });
  await refuseInput(t.path, t.inputs ?? [], t.option);
  if (!t.force && !(await beginsWith(t.path, SIGNATURES[t.kind]))) {
    throw new ChorusError(
      'bad_input',
      `The file exists and was not written by CHORUS: pass --force to overwrite it, or choose another ${t.option}.`,
      { file: t.path },
    );
  }
}

/** Checks the target again and writes it atomically. */
export async function writeOutput(t: OutputTarget, content: string): Promise<void> {
  await checkOutputTarget(t);
  await writeFileAtomic(t.path, content);
}

/** The files `chorus bench --out <dir>` writes. */
export const BENCH_OUTPUTS = ['results.json', 'summary.md', 'chart.svg'] as const;

/**
 * `bench --out <dir>`: a new or empty folder, or one an earlier `chorus bench --out` wrote (its summary.md says so:
 * results.json and chart.svg carry no mark of their own); else its files are replaced only with `--force`. None of
 * the three may be a link, a folder or a device, nor an input.
 */
export async function checkBenchOutputs(dir: string, force: boolean, inputs: string[]): Promise<void> {
  const s = await stat(dir).catch(() => undefined);
  if (!s) return;
  if (!s.isDirectory())
    throw new ChorusError(
      'bad_input',
      'Not a folder: --out takes the folder for results.json, summary.md and chart.svg.',
      { file: dir },
    );
  const present: string[] = [];
  for (const name of BENCH_OUTPUTS) {
    const path = join(dir, name);
    if (!(await lstat(path).catch(() => undefined))) continue;
    present.push(name);
    // Consent is the folder's (below); the link, device and input rules hold for each file, even with --force.
    await checkOutputTarget({ path, option: '--out', kind: 'benchSummary', force: true, inputs });
  }
  const summary = join(dir, 'summary.md');
  if (
    !force &&
    present.length &&
    !(present.includes('summary.md') && (await beginsWith(summary, SIGNATURES.benchSummary)))
  ) {
    throw new ChorusError(
      'bad_input',
      `The folder holds ${present.join(', ')}, not written by chorus bench: pass --force to replace them, or choose another --out.`,
      { file: dir },
    );
  }
}
