/**
 * The waiver file: one neutral, reviewable text file checked into the user's repository, one `[[waiver]]` table per
 * excluded point (a subset of TOML: `key = value` with double-quoted strings, integers and booleans), in a stable
 * order so a review diff shows each change once. Documented in docs/waivers.md.
 */
import { ChorusError, type CoverageKind, type WaiverCategory } from '../../protocol';
import { readUserText, UserFileError } from '../../protocol/userFile';

/** How every waiver file CHORUS writes begins (the output rule's signature, src/engine/outputs.ts). */
export const WAIVER_HEADER = '# CHORUS waivers';

export const WAIVER_CATEGORIES: readonly WaiverCategory[] = ['UNR', 'UNSUPPORTED', 'LOW_RISK'];
const KINDS: readonly CoverageKind[] = ['line', 'branch', 'toggle', 'fsm_state', 'fsm_arc', 'expr', 'user'];

export interface WaiverEntry {
  /** The source file, relative to the waiver file's folder, with `/` separators. */
  file: string;
  /** 1-based; re-anchored by the fingerprint when lines move. */
  line: number;
  /** 1-based column, 0 when unknown. */
  column: number;
  kind: CoverageKind;
  /** Verilator's comment for the point (`if`, `else`, `case`, `block`, a toggle bit). */
  point: string;
  /** The instance path below the DUT (`''`: the DUT itself; `*`: every instance). */
  instance: string;
  /** The module the point is in. */
  module: string;
  /** The lines the point stands for (Verilator's span, `10-11`), fingerprinted with the point's line. */
  span?: string;
  category: WaiverCategory;
  reason: string;
  /** Who waived it: a person's name, or `chorus` for a proof. */
  who: string;
  /** `UNR`: how it was proven (`induction`, `analysis`), the induction depth and the prover with its version. */
  proofMethod?: 'induction' | 'analysis';
  proofDepth?: number;
  proofTool?: string;
  /**
   * `sha256:` and 16 hex digits of the normalised text of the point's lines (src/engine/waivers/fingerprint.ts);
   * empty in an entry a person just wrote: the next run fills it in from the text at `line`.
   */
  fingerprint: string;
  /** Set when the entry no longer applies: why (the arm changed, a simulation covered it). Stale entries exclude nothing. */
  stale?: string;
}

/** Keys in the order they are written, with the entry field each one is. */
const FIELDS = [
  ['file', 'file'],
  ['line', 'line'],
  ['column', 'column'],
  ['kind', 'kind'],
  ['point', 'point'],
  ['instance', 'instance'],
  ['module', 'module'],
  ['span', 'span'],
  ['category', 'category'],
  ['reason', 'reason'],
  ['who', 'who'],
  ['proof_method', 'proofMethod'],
  ['proof_depth', 'proofDepth'],
  ['proof_tool', 'proofTool'],
  ['fingerprint', 'fingerprint'],
  ['stale', 'stale'],
] as const satisfies readonly (readonly [string, keyof WaiverEntry])[];

const NUMERIC = new Set<string>(['line', 'column', 'proof_depth']);
const REQUIRED = ['file', 'line', 'kind', 'point', 'category', 'reason'] as const;

/** Sorted by file, line, column, kind, instance, point: the order the file is written in. */
export function sortEntries(entries: WaiverEntry[]): WaiverEntry[] {
  return [...entries].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.line - b.line ||
      a.column - b.column ||
      a.kind.localeCompare(b.kind) ||
      a.instance.localeCompare(b.instance) ||
      a.point.localeCompare(b.point, undefined, { numeric: true }),
  );
}

export function formatWaivers(entries: WaiverEntry[]): string {
  const out = [
    `${WAIVER_HEADER} (docs/waivers.md): one [[waiver]] per excluded point. Edit the reason and who of a person's`,
    '# entries freely; CHORUS re-anchors every entry by its fingerprint on each `generate --waivers` run.',
    'version = 1',
  ];
  for (const e of sortEntries(entries)) {
    out.push('', '[[waiver]]');
    for (const [key, field] of FIELDS) {
      const v = e[field];
      if (v === undefined) continue;
      out.push(`${key} = ${typeof v === 'number' ? String(v) : JSON.stringify(v)}`);
    }
  }
  return `${out.join('\n')}\n`;
}

/** A value: a double-quoted string (JSON escapes, a subset of TOML's), an integer, or a boolean. */
const VALUE = /^([a-z_]+)\s*=\s*("(?:[^"\\]|\\.)*"|-?\d+|true|false)\s*(?:#.*)?$/;

/** Parses a waiver file; a malformed line or entry is a bad_input error naming `file:line` and what to write. */
export function parseWaivers(text: string, file: string): WaiverEntry[] {
  const entries: WaiverEntry[] = [];
  let current: Record<string, string | number> | undefined;
  let startLine = 0;
  const bad = (line: number, message: string) => new ChorusError('bad_input', message, { file, line });
  const finish = () => {
    if (!current) return;
    for (const key of REQUIRED)
      if (current[key] === undefined) throw bad(startLine, `This [[waiver]] has no ${key}: add \`${key} = …\`.`);
    const category = String(current.category);
    if (!(WAIVER_CATEGORIES as readonly string[]).includes(category))
      throw bad(startLine, `Unknown category '${category}': use ${WAIVER_CATEGORIES.join(', ')}.`);
    const kind = String(current.kind);
    if (!(KINDS as readonly string[]).includes(kind))
      throw bad(startLine, `Unknown kind '${kind}': use ${KINDS.join(', ')}.`);
    const method = current.proof_method;
    if (method !== undefined && method !== 'induction' && method !== 'analysis')
      throw bad(startLine, `Unknown proof_method '${String(method)}': use induction or analysis.`);
    const entry: WaiverEntry = {
      file: String(current.file),
      line: Number(current.line),
      column: Number(current.column ?? 0),
      kind: kind as CoverageKind,
      point: String(current.point),
      instance: String(current.instance ?? '*'),
      module: String(current.module ?? ''),
      category: category as WaiverCategory,
      reason: String(current.reason),
      who: String(current.who ?? ''),
      fingerprint: String(current.fingerprint ?? ''),
    };
    if (current.span !== undefined) entry.span = String(current.span);
    if (method !== undefined) entry.proofMethod = method;
    if (current.proof_depth !== undefined) entry.proofDepth = Number(current.proof_depth);
    if (current.proof_tool !== undefined) entry.proofTool = String(current.proof_tool);
    if (current.stale !== undefined) entry.stale = String(current.stale);
    entries.push(entry);
  };
  const keys = new Set<string>(FIELDS.map(([k]) => k));
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    if (line === '[[waiver]]') {
      finish();
      current = {};
      startLine = i + 1;
      return;
    }
    const m = VALUE.exec(line);
    if (!m) throw bad(i + 1, 'Not a `key = value` line: write a quoted string, an integer or [[waiver]].');
    const [, key, value] = m;
    if (!current) {
      if (key === 'version' && value === '1') return;
      throw bad(i + 1, key === 'version' ? 'Only version = 1 is known.' : `'${key}' before the first [[waiver]].`);
    }
    if (!keys.has(key)) throw bad(i + 1, `Unknown key '${key}': use ${[...keys].join(', ')}.`);
    const parsed: unknown = JSON.parse(value);
    if (NUMERIC.has(key) !== (typeof parsed === 'number'))
      throw bad(i + 1, `${key} takes ${NUMERIC.has(key) ? 'an integer' : 'a quoted string'}.`);
    current[key] = parsed as string | number;
  });
  finish();
  return entries;
}

/** The entries of a waiver file; none when it does not exist yet. */
export async function readWaiverFile(file: string): Promise<WaiverEntry[]> {
  try {
    return parseWaivers(await readUserText(file, { what: 'waiver file' }), file);
  } catch (err) {
    if (err instanceof UserFileError && err.problem === 'missing') return [];
    throw err;
  }
}
