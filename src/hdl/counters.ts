/**
 * Registers that count: `q <= q + 1` (or `- 1`, `++`, `+= 1`, through a next-state variable) under enclosing
 * conditions, the constants each is compared with, and what else writes it (clears, loads). A point past a
 * counter's limit needs the counting condition held for that many cycles in a row; counters whose condition
 * depends on another counter (seconds → minutes → hours) need the product. The model-free engine builds those
 * holds from this (FIELD-NOTES, "Coverage search").
 */
import type { DesignAnalysis, ModuleInfo } from '../protocol';
import { balanced } from './behaviour';
import { evaluate, type ConstScope } from './const-eval';
import { literalDetails } from './queries';
import { parseText, type Parser } from './parser';
import { splitAssignment } from './statements';
import { splitTopLevelAt } from './topLevel';
import { flatten } from './walker';

export interface CounterWrite {
  /** The enclosing conditions, as written (negated for else arms): all hold when the write happens. */
  when: string[];
  /** The value written, when it is a constant. */
  value?: bigint | undefined;
  line: number;
}

export interface CounterInfo {
  module: string;
  file: string;
  name: string;
  direction: 'up' | 'down';
  /** The counting write's line. */
  line: number;
  /** Conditions that all hold on a cycle it counts. */
  countWhen: string[];
  /** Every other write: clears, loads, the wrap at a limit. */
  loads: CounterWrite[];
  /** Constants it is compared with (and constants loaded into a down counter), ascending. */
  limits: bigint[];
  /** Other counters of the module its counting conditions depend on, directly or through other signals. */
  dependsOn: string[];
  /** Width when known (a port's or a comparison's). */
  width?: number | undefined;
}

interface Write {
  lhs: string;
  rhs: string;
  when: string[];
  line: number;
  sequential: boolean;
}

const IDENT = /^[A-Za-z_][\w$]*$/;
const IDENTS = /(?<![\w$'.])[A-Za-z_][\w$]*(?![\w$]*\s*\()/g;
/** Files larger than this are not walked again for counters: analysis of a huge file stays bounded. */
const MAX_COUNTER_FILE_BYTES = 2_000_000;

/** Identifiers an expression reads (not numbers, system calls or based-literal letters). */
export function identifiersOf(text: string): string[] {
  const stripped = text.replace(/\d*\s*'\s*[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+/g, ' ').replace(/\$[A-Za-z_]\w*/g, ' ');
  return [...new Set(stripped.match(IDENTS) ?? [])];
}

/** Top-level `&&` conjuncts, outer parentheses removed. */
export function conjuncts(cond: string): string[] {
  let c = cond.trim();
  while (c.startsWith('(') && c.endsWith(')') && balanced(c.slice(1, -1))) c = c.slice(1, -1).trim();
  return splitTopLevelAt(c, '&&').filter(Boolean);
}

/** Walks procedural code, carrying the conditions that enclose each write. */
function collectWrites(node: Parser.SyntaxNode, when: string[], sequential: boolean, out: Write[]): void {
  switch (node.type) {
    case 'always_construct': {
      const seq =
        /^\s*always(_ff)?\b[^;]*?@\s*\(\s*(posedge|negedge)/.test(node.text.slice(0, 400)) ||
        node.text.trimStart().startsWith('always_ff');
      for (const c of node.namedChildren) collectWrites(c, [], seq, out);
      return;
    }
    case 'continuous_assign':
      for (const a of node.descendantsOfType('net_assignment')) {
        const s = splitAssignment(flatten(a.text));
        if (s) out.push({ lhs: s.lhs, rhs: s.rhs, when: [], line: a.startPosition.row + 1, sequential: false });
      }
      return;
    case 'conditional_statement': {
      const prior: string[] = [];
      let cond: string | undefined;
      for (const c of node.children) {
        if (c.type === 'cond_predicate') cond = flatten(c.text);
        else if (c.type === 'statement_or_null') {
          collectWrites(c, cond !== undefined ? [...when, ...prior, cond] : [...when, ...prior], sequential, out);
          if (cond !== undefined) prior.push(`!(${cond})`);
          cond = undefined;
        }
      }
      return;
    }
    case 'case_statement': {
      const subject = flatten(node.children.find((c) => c.type === 'case_expression')?.text ?? '');
      const items = node.namedChildren.filter((c) => c.type === 'case_item');
      const labelsOf = (item: Parser.SyntaxNode) =>
        item.namedChildren.filter((c) => c.type === 'case_item_expression').map((c) => flatten(c.text));
      const all = items.flatMap(labelsOf);
      for (const item of items) {
        const labels = labelsOf(item);
        const test = labels.length
          ? labels.map((l) => `(${subject}) == (${l})`).join(' || ')
          : all.map((l) => `(${subject}) != (${l})`).join(' && ');
        const body = item.namedChildren.find((c) => c.type === 'statement_or_null');
        if (body) collectWrites(body, test ? [...when, test] : when, sequential, out);
      }
      return;
    }
    case 'nonblocking_assignment':
    case 'blocking_assignment':
    case 'operator_assignment': {
      const text = flatten(node.text).replace(/;$/, '');
      const s = splitAssignment(text);
      if (!s) return;
      const op = /([+-])=\s*$/.exec(text.slice(0, text.indexOf('=', s.lhs.length) + 1));
      const rhs = s.compound && op ? `${s.lhs} ${op[1]} (${s.rhs})` : s.rhs;
      if (s.compound && !op) return;
      out.push({ lhs: s.lhs, rhs, when, line: node.startPosition.row + 1, sequential });
      return;
    }
    case 'inc_or_dec_expression': {
      const m = /^\s*([A-Za-z_][\w$]*)\s*(\+\+|--)\s*$|^\s*(\+\+|--)\s*([A-Za-z_][\w$]*)\s*$/.exec(node.text);
      if (m) {
        const name = m[1] ?? m[4];
        const op = (m[2] ?? m[3]) === '++' ? '+' : '-';
        out.push({ lhs: name, rhs: `${name} ${op} 1`, when, line: node.startPosition.row + 1, sequential });
      }
      return;
    }
    default:
      for (const c of node.namedChildren) collectWrites(c, when, sequential, out);
  }
}

/** `q + 1`, `(q + 4'd1)`, `1 + q`, `q - 1'b1`: the direction when the right-hand side steps `name` by one. */
function stepOf(rhs: string, name: string, scope: ConstScope): 'up' | 'down' | undefined {
  let r = rhs.trim();
  while (r.startsWith('(') && r.endsWith(')') && balanced(r.slice(1, -1))) r = r.slice(1, -1).trim();
  const m = /^([A-Za-z_][\w$]*)\s*([+-])\s*(.+)$/.exec(r) ?? /^(.+?)\s*(\+)\s*([A-Za-z_][\w$]*)$/.exec(r);
  if (!m) return undefined;
  const [a, op, b] = [m[1].trim(), m[2], m[3].trim()];
  const other = a === name ? b : b === name && op === '+' ? a : undefined;
  if (other === undefined || evaluate(other, scope)?.value !== 1n) return undefined;
  return op === '+' ? 'up' : 'down';
}

function moduleScope(m: ModuleInfo): ConstScope {
  const params = new Map(m.params.filter((p) => p.value !== undefined).map((p) => [p.name, BigInt(p.value!)]));
  return { value: (name) => (params.has(name) ? { value: params.get(name)! } : undefined) };
}

/** Counters of one module, found in its source text. */
function countersOfModule(m: ModuleInfo, node: Parser.SyntaxNode): CounterInfo[] {
  const writes: Write[] = [];
  collectWrites(node, [], false, writes);
  const scope = moduleScope(m);
  const byLhs = new Map<string, Write[]>();
  for (const w of writes) {
    const list = byLhs.get(w.lhs) ?? [];
    list.push(w);
    byLhs.set(w.lhs, list);
  }
  // Every counting write of each register: the first may sit in a branch a parameter switches off.
  const found = new Map<string, { write: Write; direction: 'up' | 'down'; via?: string }[]>();
  const add = (name: string, f: { write: Write; direction: 'up' | 'down'; via?: string }) =>
    found.set(name, [...(found.get(name) ?? []), f]);
  for (const w of writes) {
    if (!IDENT.test(w.lhs)) continue;
    const direct = stepOf(w.rhs, w.lhs, scope);
    if (direct && w.sequential) {
      add(w.lhs, { write: w, direction: direct });
      continue;
    }
    // A next-state variable: `q_next = q + 1` (combinational) with `q <= q_next` (clocked).
    if (w.sequential) continue;
    const id = /^\(?\s*([A-Za-z_][\w$]*)\s*[+-]/.exec(w.rhs)?.[1];
    if (!id || id === w.lhs) continue;
    const step = stepOf(w.rhs, id, scope);
    const commit = (byLhs.get(id) ?? []).find((c) => c.sequential && c.rhs.trim() === w.lhs);
    if (step && commit)
      add(id, { write: { ...w, lhs: id, when: [...commit.when, ...w.when] }, direction: step, via: w.lhs });
  }
  if (!found.size) return [];

  // What each signal's value depends on: the identifiers in its writes' conditions and right-hand sides.
  const deps = new Map<string, Set<string>>();
  for (const w of writes) {
    const base = /^[A-Za-z_][\w$]*/.exec(w.lhs)?.[0];
    if (!base) continue;
    const set = deps.get(base) ?? new Set<string>();
    for (const t of [...w.when, w.rhs]) for (const id of identifiersOf(t)) set.add(id);
    deps.set(base, set);
  }
  const literals = literalDetails(m);
  const text = node.text;
  const width = (name: string) =>
    m.ports.find((p) => p.name === name)?.width ??
    declaredWidth(text, name, scope) ??
    literals.find((l) => l.subject?.trim() === name && l.width)?.width;
  const out: CounterInfo[] = [];
  for (const [name, counts] of found) {
    for (const f of counts) out.push(counterOf(name, f, counts));
  }
  return out;

  function counterOf(
    name: string,
    f: { write: Write; direction: 'up' | 'down'; via?: string },
    counts: { write: Write }[],
  ): CounterInfo {
    const loads: CounterWrite[] = [];
    for (const w of byLhs.get(name) ?? []) {
      if (counts.some((c) => c.write === w || c.write.line === w.line)) continue;
      if (f.via && w.rhs.trim() === f.via) continue;
      const v = evaluate(w.rhs, scope);
      loads.push({ when: w.when, value: v?.value, line: w.line });
    }
    if (f.via) {
      for (const w of byLhs.get(f.via) ?? []) {
        if (counts.some((c) => c.write.line === w.line)) continue;
        const v = evaluate(w.rhs, scope);
        loads.push({ when: w.when, value: v?.value, line: w.line });
      }
    }
    const limits = new Set<bigint>();
    for (const l of literals)
      if (l.kind === 'comparison' && l.subject?.replace(/[()\s]/g, '') === name) limits.add(BigInt(l.value));
    if (f.direction === 'down') for (const l of loads) if (l.value !== undefined && l.value > 0n) limits.add(l.value);
    // Counters the counting conditions read, directly or through up to four other signals.
    const dependsOn = new Set<string>();
    const seen = new Set<string>([name]);
    let frontier = new Set<string>(f.write.when.flatMap(identifiersOf));
    for (let depth = 0; depth < 5 && frontier.size; depth++) {
      const next = new Set<string>();
      for (const id of frontier) {
        if (seen.has(id)) continue;
        seen.add(id);
        if (found.has(id)) {
          dependsOn.add(id);
          continue;
        }
        for (const d of deps.get(id) ?? []) next.add(d);
      }
      frontier = next;
    }
    return {
      module: m.name,
      file: m.file,
      name,
      direction: f.direction,
      line: f.write.line,
      countWhen: f.write.when,
      loads,
      limits: [...limits].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
      dependsOn: [...dependsOn],
      width: width(name),
    };
  }
}

/** `reg [W-1:0] name`, `logic [7:0] a, name;`: the packed width of a declared variable, when constant. */
function declaredWidth(text: string, name: string, scope: ConstScope): number | undefined {
  const decl = new RegExp(
    `\\b(?:reg|logic|bit|wire|var)\\b\\s*(?:signed\\s*|unsigned\\s*)?\\[([^\\]:]+):([^\\]]+)\\]\\s*(?:[A-Za-z_][\\w$]*\\s*(?:=[^,;]*)?,\\s*)*${name}\\b`,
  );
  const m = decl.exec(text);
  if (!m) return undefined;
  const msb = evaluate(m[1], scope)?.value;
  const lsb = evaluate(m[2], scope)?.value;
  if (msb === undefined || lsb === undefined) return undefined;
  const w = Number(msb > lsb ? msb - lsb : lsb - msb) + 1;
  return w > 0 && w <= 64 ? w : undefined;
}

/**
 * The counters of a module, read from the source texts (absolute path → text) the analysis was made from.
 * Best effort: a module whose file is missing or too large yields none.
 */
export function countersOf(
  analysis: DesignAnalysis,
  module: string,
  sources: ReadonlyMap<string, string>,
): CounterInfo[] {
  const m = analysis.modules.find((x) => x.name === module);
  if (!m) return [];
  const text = sources.get(m.file);
  if (text === undefined || text.length > MAX_COUNTER_FILE_BYTES) return [];
  const tree = parseText(text);
  const decl = tree.rootNode
    .descendantsOfType('module_declaration')
    .find((n) => n.startPosition.row + 1 === m.range.startLine || moduleName(n) === module);
  return decl ? countersOfModule(m, decl) : [];
}

function moduleName(n: Parser.SyntaxNode): string | undefined {
  return /^\s*(?:module|macromodule)\s+(?:(?:automatic|static)\s+)?([A-Za-z_][\w$]*)/.exec(n.text.slice(0, 300))?.[1];
}
