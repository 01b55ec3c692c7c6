/**
 * FSMs for coverage: each state register's states and the arcs its case statement can take, with the source
 * lines a hole points at (a state's case item, an arc's assignment). Read from the syntax walk (raw.ts), it
 * covers what Verilator's native FSM coverage misses: `IDLE: if (go) state_d = RUN;` under a default hold
 * (`state_d = state_q;` before the case) has the arcs IDLE->RUN and IDLE->IDLE.
 *
 * Conservative, as every analysis here: an FSM is listed only when every write of the next state in its case
 * items is a constant, a `c ? a : b` of constants, or the register itself; anything else (arithmetic, a
 * function, two items on one line) drops the FSM rather than invent arcs. Shapes:
 * - two blocks: `always_ff … state_q <= state_d;` and `always_comb … case (state_q) … state_d = X;`
 * - one block: `always_ff … case (state) … state <= X;` (the register holds when an item does not write it)
 * A reset arm (`if (rst) state <= IDLE;` first in the register's block, or last after every other write of the
 * register) gives the arc `ANY->IDLE[reset]`.
 */
import { createHash } from 'node:crypto';
import type { FsmModel } from '../protocol';
import { extractFile } from './extract';
import type { RawAssign, RawCase, RawDataType, RawFile, RawModule } from './raw';
import { splitConditional } from './topLevel';
import { readSourceText } from './files';

/** Comments and strings blanked out, keeping line structure. */
function stripNoise(text: string): string {
  return text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\\n]|\\.)*"/g, (m) => m.replace(/[^\n]/g, ' '));
}

const IDENT = /^[A-Za-z_][\w$]*$/;
const CONSTANT_NAME = /^(?:[A-Za-z_][\w$]*::)?[A-Za-z_][\w$]*$/;
const LITERAL = /^(?:\d[\d_]*)?\s*'[sS]?[bBoOdDhH]\s*[0-9a-fA-F_]+$|^\d[\d_]*$/;
/** Statements that make the writes of a case item conditional: the register may keep its value. */
const CONDITIONAL = /\b(?:if|case|casez|casex|for|while|repeat|foreach)\b/;
const MAX_STATES = 256;

/** Splits `c ? a : b` (nested on either arm) into its leaf values; the text itself when it is no conditional. */
export function conditionalArms(text: string): string[] {
  const t = unwrap(text);
  const arms = splitConditional(t);
  return arms ? [...conditionalArms(arms[0]), ...conditionalArms(arms[1])] : [t];
}

/** Outer parentheses and casts (`States'(x)`, `state_t'(x)`) removed: a cast of a state is that state. */
function unwrap(text: string): string {
  let t = text.trim();
  for (;;) {
    const cast = /^[A-Za-z_][\w$]*(?:::[A-Za-z_][\w$]*)?'(?=\()/.exec(t);
    if (cast && closesAtEnd(t.slice(cast[0].length))) t = t.slice(cast[0].length);
    else if (t.startsWith('(') && t.endsWith(')') && closesAtEnd(t)) t = t.slice(1, -1).trim();
    else return t;
  }
}

function closesAtEnd(t: string): boolean {
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '(') depth++;
    else if (t[i] === ')' && --depth === 0) return i === t.length - 1;
  }
  return false;
}

function within(line: number, a: { range: { startLine: number; endLine: number } }): boolean {
  return line >= a.range.startLine && line <= a.range.endLine;
}

function enumMembers(type: RawDataType | undefined, raw: RawFile, m: RawModule): string[] | undefined {
  if (!type) return undefined;
  if (type.enumDef) return type.enumDef.members.map((x) => x.name);
  if (!type.userType) return undefined;
  const name = type.userType.split('::').pop() ?? type.userType;
  const scopes = [m, raw.unit, ...raw.packages];
  for (const scope of scopes) {
    const def = scope.typedefs.find((t) => t.name === name);
    if (def?.type.enumDef) return def.type.enumDef.members.map((x) => x.name);
  }
  return undefined;
}

/** The FSMs of one parsed file's modules. */
export function fsmModelsOf(raw: RawFile, text: string): FsmModel[] {
  const lines = stripNoise(text).split('\n');
  const out: FsmModel[] = [];
  for (const m of raw.modules) {
    const seen = new Set<string>();
    for (const c of m.cases) {
      const model = fsmOfCase(raw, m, c, lines);
      if (model && !seen.has(model.variable)) {
        seen.add(model.variable);
        out.push(model);
      }
    }
  }
  return out;
}

function fsmOfCase(raw: RawFile, m: RawModule, c: RawCase, lines: string[]): FsmModel | undefined {
  if (c.inside || c.keyword !== 'case') return undefined;
  const register = unwrap(c.subject);
  if (!IDENT.test(register)) return undefined;
  const signals = new Set([...m.decls.map((d) => d.name), ...m.ports.map((p) => p.name)]);
  if (
    !m.decls.some((d) => d.name === register && d.unpacked.length === 0) &&
    !m.ports.some((p) => p.name === register && p.direction === 'output')
  )
    return undefined;
  const isConstant = (t: string): boolean => (CONSTANT_NAME.test(t) && !signals.has(t)) || LITERAL.test(t);

  // The register's block: a clocked always writing it, every write of the register inside that one block.
  const writes = m.assigns.filter((a) => !a.continuous && a.lhs.trim() === register);
  const clocked = m.always.filter(
    (a) => a.events.length > 0 && a.events.every((e) => e.edge !== null) && writes.some((w) => within(w.line, a)),
  );
  if (clocked.length !== 1 || writes.some((w) => !within(w.line, clocked[0]))) return undefined;
  if (m.otherWrites.some((w) => new RegExp(`\\b${register.replace(/\$/g, '\\$')}\\b`).test(w.text))) return undefined;
  const block = clocked[0];
  const caseBlock = m.always.find((a) => within(c.range.startLine, a));
  if (!caseBlock) return undefined;

  // A reset arm is the block's first `if`, or a top-level `if` after every other write of the register
  // (`state <= next; if (rst) state <= IDLE;`): a later write wins, so it is the reset either way.
  const writesIn = (t: (typeof block.topIfs)[number]) => t.thenAssigns.filter((a) => a.lhs.trim() === register);
  const lastIf = block.topIfs.find((t) => {
    const mine = writesIn(t);
    if (!mine.length) return false;
    const first = Math.min(...mine.map((a) => a.line));
    return writes.every((w) => mine.includes(w) || w.line < first);
  });
  const resetIf = block.topIfs.find((t) => t.first) ?? lastIf;
  const resetWrites = resetIf?.thenAssigns.filter((a) => a.lhs.trim() === register) ?? [];
  const resetLines = new Set(resetWrites.map((a) => a.line));
  let target: string;
  let holds: boolean;
  if (caseBlock === block) {
    // One block: the case writes the register; an item that does not write it keeps its value.
    target = register;
    holds = true;
  } else {
    // Two blocks: the register takes a next-state variable; the case computes it.
    const loads = writes.filter((w) => !resetLines.has(w.line));
    if (loads.length !== 1 || !IDENT.test(loads[0].rhs.trim())) return undefined;
    target = loads[0].rhs.trim();
    if (caseBlock.events.length && caseBlock.events.some((e) => e.edge !== null)) return undefined;
    const targetWrites = m.assigns.filter((a) => a.lhs.trim() === target);
    if (targetWrites.some((a) => a.continuous || !within(a.line, caseBlock))) return undefined;
    // A default hold (`state_d = state_q;` before the case) keeps the state where an item does not write it.
    holds = targetWrites.some((a) => a.line < c.range.startLine && unwrap(a.rhs) === register);
    if (!holds && targetWrites.some((a) => a.line < c.range.startLine)) return undefined;
  }

  const members = enumMembers(m.decls.find((d) => d.name === register)?.type, raw, m);
  const items = c.items.filter((i) => !i.isDefault);
  const labels = items.flatMap((i) => i.labels.map((l) => l.trim()));
  if (!labels.length || labels.some((l) => !isConstant(l))) return undefined;
  // Items sharing a line cannot be told apart by line: their writes would be guessed.
  const itemLines = c.items.map((i) => i.line);
  if (new Set(itemLines).size !== itemLines.length) return undefined;

  const states: FsmModel['states'] = [];
  const addState = (label: string, line: number): void => {
    if (!states.some((s) => s.label === label)) states.push({ label, line });
  };
  for (const i of items) for (const l of i.labels) addState(l.trim(), i.line);
  for (const name of members ?? []) addState(name, c.range.startLine);

  const arcs: FsmModel['arcs'] = [];
  const addArc = (from: string, to: string, line: number, reset?: boolean): void => {
    if (arcs.some((a) => a.from === from && a.to === to && Boolean(a.reset) === Boolean(reset))) return;
    arcs.push(reset ? { from, to, line, reset } : { from, to, line });
  };
  const targetWrites = m.assigns.filter(
    (a) => !a.continuous && a.lhs.trim() === target && within(a.line, c) && !resetLines.has(a.line),
  );
  const regionOf = (k: number): [number, number] => [
    c.items[k].line,
    k + 1 < c.items.length ? c.items[k + 1].line - 1 : c.range.endLine,
  ];
  const itemArcs = (k: number): { to: string; line: number }[] | undefined => {
    const [from, to] = regionOf(k);
    const mine: RawAssign[] = targetWrites.filter((a) => a.line >= from && a.line <= to);
    const found: { to: string; line: number }[] = [];
    for (const a of mine) {
      for (const arm of conditionalArms(a.rhs)) {
        if (arm === register) found.push({ to: '', line: a.line });
        else if (isConstant(arm) && !/'[sS]?[bBoOdDhH]?\s*[0-9a-fA-F_]*[xXzZ?]/.test(arm))
          found.push({ to: arm, line: a.line });
        else return undefined;
      }
    }
    const body = lines
      .slice(from - 1, to)
      .join('\n')
      .replace(/^[^:]*:/, '');
    if (holds && (!mine.length || CONDITIONAL.test(body))) found.push({ to: '', line: c.items[k].line });
    return found;
  };
  for (const [k, item] of c.items.entries()) {
    if (item.isDefault) continue;
    const found = itemArcs(k);
    if (!found) return undefined;
    for (const l of item.labels) for (const f of found) addArc(l.trim(), f.to || l.trim(), f.line);
  }
  // A `default` item's writes are left out: it runs only for values no item names (an enum member never
  // assigned, a corrupted register), which are holes nobody can close by stimulus.
  let reset: string | undefined;
  for (const w of resetWrites) {
    const value = unwrap(w.rhs);
    if (!isConstant(value)) continue;
    reset = resetIf?.cond;
    addState(value, c.range.startLine);
    addArc('ANY', value, w.line, true);
  }
  for (const a of arcs) if (!a.reset) addState(a.to, c.range.startLine);
  if (states.length < 2 || states.length > MAX_STATES) return undefined;
  return {
    module: m.name,
    file: raw.file,
    variable: register,
    line: c.range.startLine,
    events: block.events.map((e) => ({ edge: e.edge as 'posedge' | 'negedge', signal: e.signal })),
    ...(reset ? { reset } : {}),
    states,
    arcs,
  };
}

const CACHE_SIZE = 64;
/** Per file name and text: a search measures hundreds of candidates against the same files. */
const cache = new Map<string, FsmModel[]>();

function fileModels(name: string, content: string): FsmModel[] {
  const key = `${name}\u0000${createHash('sha1').update(content).digest('hex')}`;
  let models = cache.get(key);
  if (!models) {
    try {
      models = fsmModelsOf(extractFile(name, content), content);
    } catch {
      // An unparsable file has no FSM CHORUS can name; the build reports the file's errors.
      models = [];
    }
    cache.set(key, models);
    if (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  }
  return models;
}

/** Reads the files and lists their FSMs; a file that cannot be read (or is no regular file) gives none (the build reports it). */
export async function fsmModelsOfFiles(paths: string[]): Promise<FsmModel[]> {
  const files = await Promise.all(
    paths.map(async (name) => ({ name, content: await readSourceText(name).catch(() => '') })),
  );
  return fsmModels(files);
}

/** The FSMs of the given files (their text as read); a file the walk cannot read gives none. */
export function fsmModels(files: { name: string; content: string }[]): FsmModel[] {
  const out: FsmModel[] = [];
  for (const f of files) out.push(...fileModels(f.name, f.content));
  // A module name declared in two files cannot be bound to one of them.
  const modules = new Map<string, Set<string>>();
  for (const m of out) modules.set(m.module, (modules.get(m.module) ?? new Set()).add(m.file));
  return out.filter((m) => modules.get(m.module)?.size === 1);
}
