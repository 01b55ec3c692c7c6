/**
 * Constants the RTL compares against, and the values of case items: the model-free engine's value
 * dictionary (exact literals are what plain random stimulus misses) and the input to unreachable-default checks.
 */
import type { CaseInfo, CaseItemInfo, LiteralInfo } from '../protocol';
import { mask, parseNumber } from './numbers';
import type { RawCase, RawModule } from './raw';
import type { Scope } from './scope';

/** Widths and enum types of a module's ports and variables. */
export interface SignalTable {
  /** Width of a name, or of a struct member path such as `req.op`. */
  width(name: string): number | undefined;
  enumMembers(name: string): string[] | undefined;
  /** True for arrays (unpacked dimensions): `mem[i]` is then a whole element. */
  isArray(name: string): boolean;
}

/** A name or a struct member path: `state`, `req.op`. */
const PATH = /^[A-Za-z_][\w$]*(\.[A-Za-z_][\w$]*)*$/;

/** Width of a simple expression: a name, a bit or part select, a concatenation of those. */
export function exprWidth(text: string, scope: Scope, signals: SignalTable): number | undefined {
  const t = text.trim();
  if (PATH.test(t)) return signals.width(t);
  const sel = /^([A-Za-z_][\w$]*)\s*\[(.*)\]$/.exec(t);
  if (sel && !sel[2].includes('][')) {
    const inner = sel[2];
    const plus = /^(.*?)\s*[+-]:\s*(.+)$/.exec(inner);
    if (plus) return numberOf(plus[2], scope);
    const colon = inner.indexOf(':');
    if (colon < 0) return signals.isArray(sel[1]) ? signals.width(sel[1]) : 1;
    const a = scope.evaluate(inner.slice(0, colon));
    const b = scope.evaluate(inner.slice(colon + 1));
    return a && b ? Number(a.value > b.value ? a.value - b.value : b.value - a.value) + 1 : undefined;
  }
  const parts = concatParts(t, scope, signals);
  return parts ? parts.reduce((s, p) => s + p.width, 0) : undefined;
}

function numberOf(text: string, scope: Scope): number | undefined {
  const v = scope.evaluate(text);
  return v ? Number(v.value) : undefined;
}

/** `{push, pop}` → [{push, 1}, {pop, 1}] when every part is a name of known width. */
export function concatParts(
  text: string,
  scope: Scope,
  signals: SignalTable,
): { name: string; width: number }[] | undefined {
  const m = /^\{(.*)\}$/.exec(text.trim());
  if (!m || m[1].includes('{')) return undefined;
  const out: { name: string; width: number }[] = [];
  for (const part of m[1].split(',')) {
    const name = part.trim();
    const width = exprWidth(name, scope, signals);
    if (width === undefined) return undefined;
    out.push({ name, width });
  }
  return out.length ? out : undefined;
}

/** A case label's value and don't-care mask, or null when it is not a constant. */
function labelValue(
  label: string,
  c: RawCase,
  width: number | undefined,
  scope: Scope,
): { value: bigint; wildcard: bigint } | null {
  const n = parseNumber(label);
  if (n) {
    if (n.fill) {
      if (width === undefined || n.fill === 'x' || n.fill === 'z') return null;
      return { value: n.fill === '1' ? mask(width) : 0n, wildcard: 0n };
    }
    // In a plain case, x/z bits never match two-state values; in casez/casex they are don't-cares.
    if (n.unknownMask !== 0n && c.keyword === 'case' && !c.inside) return null;
    return { value: n.value, wildcard: n.unknownMask };
  }
  const v = scope.evaluate(label);
  if (!v) return null;
  const value = width !== undefined && v.value < 0n ? v.value & mask(width) : v.value;
  return value < 0n ? null : { value, wildcard: 0n };
}

export function buildCases(raw: RawModule, scope: Scope, signals: SignalTable): CaseInfo[] {
  return raw.cases.map((c) => {
    const subjectWidth = exprWidth(c.subject, scope, signals);
    const items: CaseItemInfo[] = [];
    let defaultLine: number | undefined;
    for (const item of c.items) {
      if (item.isDefault) {
        defaultLine ??= item.line;
        if (!item.labels.length) continue;
      }
      items.push({
        labels: item.labels,
        values: item.labels.map((l) => {
          const v = labelValue(l, c, subjectWidth, scope);
          if (!v) return null;
          return v.wildcard
            ? { value: v.value.toString(), wildcardMask: v.wildcard.toString() }
            : { value: v.value.toString() };
        }),
        line: item.line,
      });
    }
    const info: CaseInfo = { keyword: c.keyword, inside: c.inside, subject: c.subject, items, range: c.range };
    if (subjectWidth !== undefined) info.subjectWidth = subjectWidth;
    const members = PATH.test(c.subject) ? signals.enumMembers(c.subject) : undefined;
    if (members) info.enumMembers = members;
    if (defaultLine !== undefined) info.defaultLine = defaultLine;
    return info;
  });
}

// ---- comparisons -------------------------------------------------------------------------------

interface Token {
  text: string;
  start: number;
  end: number;
}

const TOKEN =
  /(\d[\d_]*)?\s*'\s*[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|'[01xXzZ]|\d[\d_]*(?:\.\d+)?|[A-Za-z_][\w$]*(?:::[A-Za-z_][\w$]*)*|\$[A-Za-z_]\w*|===|!==|==\?|!=\?|==|!=|<=|>=|<<<|>>>|<<|>>|&&|\|\||->|\S/g;
const COMPARISON = new Set(['==', '!=', '===', '!==', '==?', '!=?', '<', '<=', '>', '>=']);
const STOP = new Set(['&&', '||', '?', ':', ',', '&', '|', '^', '~^', '!', '~', ';', '=', '->', ...COMPARISON]);
const OPEN = new Set(['(', '[', '{']);
const CLOSE = new Set([')', ']', '}']);

function tokenize(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(TOKEN)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  return out;
}

/** Operands around each comparison operator: `count == MAX - 1` → [`count`, `MAX - 1`]. */
export function comparisons(text: string): { left: string; right: string }[] {
  const toks = tokenize(text);
  const out: { left: string; right: string }[] = [];
  for (let k = 0; k < toks.length; k++) {
    if (!COMPARISON.has(toks[k].text)) continue;
    let depth = 0;
    let i = k - 1;
    for (; i >= 0; i--) {
      const t = toks[i].text;
      if (CLOSE.has(t)) depth++;
      else if (OPEN.has(t)) {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && STOP.has(t)) break;
    }
    depth = 0;
    let j = k + 1;
    for (; j < toks.length; j++) {
      const t = toks[j].text;
      if (OPEN.has(t)) depth++;
      else if (CLOSE.has(t)) {
        if (depth === 0) break;
        depth--;
      } else if (depth === 0 && STOP.has(t)) break;
    }
    if (i + 1 > k - 1 || k + 1 > j - 1) continue;
    out.push({
      left: text.slice(toks[i + 1].start, toks[k - 1].end).trim(),
      right: text.slice(toks[k + 1].start, toks[j - 1].end).trim(),
    });
  }
  return out;
}

/** A name, a struct member (`req.op`), either selected, or a concatenation. */
const SIGNAL = /^(?:[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*(?:\s*\[[^\]]*\])*|\{[^{}]*\})$/;

export function harvestLiterals(raw: RawModule, cases: CaseInfo[], scope: Scope, signals: SignalTable): LiteralInfo[] {
  const seen = new Set<string>();
  const out: LiteralInfo[] = [];
  const add = (lit: LiteralInfo) => {
    const key = `${lit.kind}|${lit.subject}|${lit.value}|${lit.wildcardMask ?? ''}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(lit);
  };
  for (const c of cases) {
    const parts = concatParts(c.subject, scope, signals);
    for (const item of c.items) {
      item.values.forEach((v, i) => {
        if (!v) return;
        const width = c.subjectWidth ?? parseNumber(item.labels[i])?.width;
        add({
          value: v.value,
          ...(v.wildcardMask ? { wildcardMask: v.wildcardMask } : {}),
          ...(width !== undefined ? { width } : {}),
          subject: c.subject,
          ...(parts ? { subjectParts: parts } : {}),
          kind: 'case_item',
          file: raw.file,
          line: item.line,
        });
      });
    }
  }
  for (const e of raw.exprs) {
    if (!/[<>]|[=!]=/.test(e.text)) continue; // no comparison operator
    for (const { left, right } of comparisons(e.text)) {
      const isSignal = (x: string) => SIGNAL.test(x) && !scope.isConstant(x);
      const lv = isSignal(left) ? undefined : scope.evaluate(left);
      const rv = lv || isSignal(right) ? undefined : scope.evaluate(right);
      const subject = lv ? right : left;
      const v = lv ?? rv;
      if (!v || !SIGNAL.test(subject) || scope.isConstant(subject)) continue;
      const width = exprWidth(subject, scope, signals) ?? v.width;
      let value = v.value;
      if (value < 0n) {
        if (width === undefined) continue;
        value &= mask(width);
      }
      const parts = concatParts(subject, scope, signals);
      add({
        value: value.toString(),
        ...(width !== undefined ? { width } : {}),
        subject,
        ...(parts ? { subjectParts: parts } : {}),
        kind: 'comparison',
        file: raw.file,
        line: e.line,
      });
    }
  }
  return out;
}
