/**
 * Reads Verilator's coverage.dat (`# SystemC::Coverage-3`, then `C '<key>' <count>` lines, the key a run of
 * `\x01name\x02value` fields) and keeps the points of the DUT's own files, exactly as Verilator counted them.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { ChorusError, type CoverageKind, type CoveragePoint } from '../../protocol';
import { decodeCoverageText } from './coverageQuoting';
import { linkedFileOf } from '../verilator/pathLinks';
import { samePointsOnEveryVersion } from '../verilator/versionPoints';

const HEADER = '# SystemC::Coverage-3';
const POINT_LINE = /^C '(.*)' (\d+)$/;

/** Long key names Verilator may write, mapped to the short ones it normally uses. */
const LONG_KEYS: Record<string, string> = {
  column: 'n',
  comment: 'o',
  filename: 'f',
  hier: 'h',
  lineno: 'l',
  linescov: 'S',
  per_instance: 'P',
  thresh: 's',
  type: 't',
  weight: 'w',
};

function kindOf(page: string, type: string | undefined): CoverageKind {
  const prefix = (page.split('/')[0] || type || '').replace(/^v_/, '');
  if (
    prefix === 'line' ||
    prefix === 'branch' ||
    prefix === 'toggle' ||
    prefix === 'expr' ||
    prefix === 'fsm_state' ||
    prefix === 'fsm_arc'
  )
    return prefix;
  // v_user (cover properties) and kinds newer Verilators add are kept, not summarised.
  return 'user';
}

function parseKey(key: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of key.split('\x01')) {
    if (!part) continue;
    const sep = part.indexOf('\x02');
    if (sep < 0) continue;
    // Names and values are quoted by Verilator's runtime (`%C3`, or `%FFFFFFC3` where char is signed).
    const name = decodeCoverageText(part.slice(0, sep));
    fields.set(LONG_KEYS[name] ?? name, decodeCoverageText(part.slice(sep + 1)));
  }
  return fields;
}

/**
 * Verilator's native FSM points (5.048+) name their instance in the comment (`h=TOP.TOP`,
 * `o=tb.u_fsm.state_q::RUN->FIN`, `Fv=tb.u_fsm.state_q`): the point gets the instance path other points have
 * (`TOP.tb.u_fsm`) and the comment without it (`state_q::RUN->FIN`), the form CHORUS's own FSM points use.
 */
function nativeFsmPlace(point: CoveragePoint, variablePath: string | undefined): void {
  const sep = point.comment.indexOf('::');
  const path = variablePath ?? (sep > 0 ? point.comment.slice(0, sep) : '');
  const dot = path.lastIndexOf('.');
  if (dot < 0) return;
  const instance = path.slice(0, dot);
  // `h` is the model's name then Verilator's root scope (`TOP.TOP` under CHORUS's main, `TOP` with --binary);
  // the other points' paths start with the model's name only (`TOP.tb.u_fsm`, `tb.u_fsm`).
  const root = point.hierarchy;
  const model = root.includes('.') ? root.slice(0, root.lastIndexOf('.')) : '';
  point.hierarchy = !model || instance.startsWith(`${model}.`) ? instance : `${model}.${instance}`;
  point.comment = `${path.slice(dot + 1)}${point.comment.slice(sep)}`.replace(/\[reset_include\]$/, '[reset]');
  point.module = '';
}

/**
 * Matches recorded file names to the caller's DUT files (by resolved path, or as the link a build gave Verilator
 * for a path with spaces: pathLinks.ts); returns the caller's spelling.
 */
function dutMatcher(dutFiles: string[]): (recorded: string) => string | undefined {
  const byPath = new Map<string, string>();
  for (const f of dutFiles) {
    byPath.set(f, f);
    byPath.set(resolve(f), f);
  }
  const linked = linkedFileOf(dutFiles);
  return (recorded) => byPath.get(recorded) ?? byPath.get(resolve(recorded)) ?? linked(recorded);
}

/**
 * Points of the DUT files in `text`; `file` of each point is the DUT file as the caller spelled it.
 * A malformed or truncated file is a ChorusError('failed') located at `sourceName`.
 */
export function parseCoverageDat(text: string, dutFiles: string[], sourceName: string): CoveragePoint[] {
  const bad = (line: number, why: string): ChorusError =>
    new ChorusError('failed', `${why} in ${sourceName}: the coverage file is damaged; run the simulation again.`, {
      file: sourceName,
      line,
    });
  const lines = text.split('\n');
  if (lines[0]?.trimEnd() !== HEADER) throw bad(1, `Not a Verilator coverage file (expected "${HEADER}")`);
  if (!text.endsWith('\n')) throw bad(lines.length, 'Truncated last line');
  const isDut = dutMatcher(dutFiles);
  const points: CoveragePoint[] = [];
  for (let i = 1; i < lines.length; i++) {
    const raw = lines[i];
    if (!raw || raw.startsWith('#')) continue;
    const m = POINT_LINE.exec(raw);
    if (!m) throw bad(i + 1, 'Malformed coverage line');
    const fields = parseKey(m[1]);
    const recorded = fields.get('f');
    const lineText = fields.get('l') ?? '';
    const page = fields.get('page');
    // Digits only: Number() would also take '', ' 12', '-3' or '1e3' from a damaged key.
    if (recorded === undefined || !/^\d{1,9}$/.test(lineText) || page === undefined)
      throw bad(i + 1, 'Coverage point without file, line or page');
    const count = Number(m[2]);
    if (!Number.isSafeInteger(count)) throw bad(i + 1, 'Coverage count out of range');
    const lineNo = Number(lineText);
    const file = isDut(recorded);
    if (!file) continue;
    const column = Number(fields.get('n') ?? 0);
    const point: CoveragePoint = {
      file,
      line: lineNo,
      column: Number.isSafeInteger(column) && column >= 0 ? column : 0,
      kind: kindOf(page, fields.get('t')),
      comment: fields.get('o') ?? '',
      hierarchy: fields.get('h') ?? '',
      module: page.includes('/') ? page.slice(page.indexOf('/') + 1) : '',
      count,
    };
    const span = fields.get('S');
    if (span) point.span = span;
    if (point.kind === 'fsm_state' || point.kind === 'fsm_arc') nativeFsmPlace(point, fields.get('Fv'));
    points.push(point);
  }
  // Newer Verilators' extra toggle directions and `?:` branch arms folded back: the same points on every version.
  return samePointsOnEveryVersion(points);
}

export async function readCoverageFile(path: string, dutFiles: string[]): Promise<CoveragePoint[]> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new ChorusError(
      'failed',
      `Cannot read coverage file ${path} (${(err as NodeJS.ErrnoException).code ?? String(err)}): run the simulation again.`,
      { file: path },
      { cause: err },
    );
  }
  return parseCoverageDat(text, dutFiles, path);
}

export { pointLines } from '../../protocol';
