/** Clock, reset and FSM state registers of one module, read from how its always blocks use signals. */
import type { FsmInfo, PortInfo, ResetInfo } from '../protocol';
import type { RawAlways, RawAssign, RawModule } from './raw';
import type { Scope } from './scope';

const IDENT = /^[A-Za-z_][\w$]*$/;
const CLOCK_NAME = /clk|clock|(^|_)ck(_|\d|$)/i;
const RESET_NAME = /rst|reset|(^|_)(clr|clear|init)(_?n|_?b)?(_|\d|$)/i;

/** The signal an `if` condition tests as a reset, with its polarity: `!rst_n`, `rst`, `rst == 1'b0`, … */
export function resetTest(cond: string): { name: string; activeLow: boolean } | undefined {
  let c = cond.trim();
  while (/^\(.*\)$/.test(c) && balanced(c.slice(1, -1))) c = c.slice(1, -1).trim();
  const negated = /^[!~]\s*\(?\s*([A-Za-z_][\w$]*)\s*\)?$/.exec(c);
  if (negated) return { name: negated[1], activeLow: true };
  if (IDENT.test(c)) return { name: c, activeLow: false };
  const cmp = /^(.+?)\s*(===|==|!==|!=)\s*(.+)$/.exec(c);
  if (!cmp) return undefined;
  const [left, op, right] = [cmp[1].trim(), cmp[2], cmp[3].trim()];
  const name = IDENT.test(left) ? left : IDENT.test(right) ? right : undefined;
  const bit = bitValue(name === left ? right : left);
  if (!name || bit === undefined) return undefined;
  const equal = op === '==' || op === '===';
  // `rst == 0` and `rst != 1` are active-low tests
  return { name, activeLow: equal ? bit === 0 : bit === 1 };
}

function bitValue(text: string): 0 | 1 | undefined {
  const t = text.trim().replace(/\s+/g, '');
  if (/^(1'[bBhHdDoO]0|'0|0|1'[sS][bB]0)$/.test(t)) return 0;
  if (/^(1'[bBhHdDoO]1|'1|1|1'[sS][bB]1)$/.test(t)) return 1;
  return undefined;
}

/** True when the parentheses in `text` pair up. */
export function balanced(text: string): boolean {
  let depth = 0;
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

const LITERAL = /(\d[\d_]*)?\s*'\s*[sS]?[bBoOdDhH]\s*[0-9a-fA-FxXzZ?_]+|'[01xXzZ]|\d[\d_]*/g;

/** A literal, a concatenation of literals, or the name of a constant. */
export function isConstantExpr(text: string, scope: Scope): boolean {
  const t = text.trim();
  if (!t) return false;
  if (IDENT.test(t) || /^[\w$]+::[\w$]+$/.test(t)) return scope.isConstant(t);
  return /^[\s{},]*$/.test(t.replace(LITERAL, '')) && /\d|'/.test(t);
}

/** Zero (`0`, `'0`, `8'h00`, `{N{1'b0}}`) or a named constant (an idle state, a reset value parameter). */
function isClearingValue(text: string, scope: Scope): boolean {
  const t = text.trim();
  if (IDENT.test(t) || /^[\w$]+::[\w$]+$/.test(t)) return scope.isConstant(t);
  if (!isConstantExpr(t, scope)) return false;
  return (
    t
      .replace(LITERAL, (lit) => (/^(\d*\s*'\s*[sS]?[bBoOdDhH]\s*)?[0_]+$|^'0$/.test(lit) ? '' : 'x'))
      .replace(/[\s{},]/g, '') === ''
  );
}

interface ResetVote {
  activeLow: boolean;
  async: boolean;
  votes: number;
  named: boolean;
}

interface Votes {
  clocks: Map<string, number>;
  resets: Map<string, ResetVote>;
  /** Per clock, the resets its blocks test, with their votes: a clock domain's own reset. */
  domains: Map<string, Map<string, ResetVote>>;
}

export interface ClockReset {
  clock: string | null;
  reset: ResetInfo | null;
  /** Every clock input, `clock` first. */
  clocks: string[];
  /** Every domain's reset input, `reset` first (a reset shared by several clocks is listed once). */
  resets: ResetInfo[];
}

// Asynchronous resets are certain; a synchronous one must look like a reset by name or by what it does.
const rank = (r: { async: boolean; named: boolean; votes: number }) =>
  (r.async ? 2000 : 0) + (r.named ? 1000 : 0) + r.votes;

function bestReset(votes: Map<string, ResetVote>, exclude: Set<string>, ports: PortInfo[]): ResetInfo | null {
  const candidates = [...votes].filter(([n]) => !exclude.has(n));
  candidates.sort((a, b) => rank(b[1]) - rank(a[1]) || portIndex(ports, a[0]) - portIndex(ports, b[0]));
  const r = candidates[0];
  return r ? { name: r[0], activeLow: r[1].activeLow, async: r[1].async } : null;
}

export function detectClockReset(raw: RawModule, ports: PortInfo[], scope: Scope): ClockReset {
  const oneBitInputs = new Set(ports.filter((p) => p.direction === 'input' && p.width === 1).map((p) => p.name));
  const votes: Votes = { clocks: new Map(), resets: new Map(), domains: new Map() };
  for (const block of raw.always) vote(block, oneBitInputs, scope, votes);

  const edgeClocks = [...votes.clocks].filter(([n]) => !votes.resets.get(n)?.async);
  const clock = best([...edgeClocks], CLOCK_NAME, ports);
  const reset = bestReset(votes.resets, new Set(clock ? [clock] : []), ports);
  // Further clocks must be named like one: an edge-triggered data input (a strobe, a button) stays data.
  const others = edgeClocks
    .map(([n]) => n)
    .filter((n) => n !== clock && CLOCK_NAME.test(n))
    .sort((a, b) => portIndex(ports, a) - portIndex(ports, b));
  const clocks = clock ? [clock, ...others] : [];
  const resets: ResetInfo[] = reset ? [reset] : [];
  const taken = new Set([...clocks, ...resets.map((r) => r.name)]);
  for (const c of others) {
    const own = bestReset(votes.domains.get(c) ?? new Map(), taken, ports);
    if (!own) continue;
    resets.push(own);
    taken.add(own.name);
  }
  return { clock, reset, clocks, resets };
}

function vote(block: RawAlways, inputs: Set<string>, scope: Scope, votes: Votes): void {
  const edges = block.events.filter((e) => e.edge && IDENT.test(e.signal) && inputs.has(e.signal));
  if (!edges.length) return;
  // The reset test is normally the block's first statement; a later top-level `if (reset)` that
  // overrides everything counts too when the signal is named like a reset.
  const tests = block.topIfs
    .map((t) => ({ ...t, test: resetTest(t.cond) }))
    .filter((t) => t.test && inputs.has(t.test.name) && (t.first || RESET_NAME.test(t.test.name)));
  const asyncEdges = new Set(
    tests.map((t) => edges.find((e) => e.signal === t.test!.name)).filter((e) => e !== undefined),
  );
  for (const e of edges) {
    if (asyncEdges.has(e)) continue;
    votes.clocks.set(e.signal, (votes.clocks.get(e.signal) ?? 0) + 1);
  }
  for (const t of tests) {
    const tested = t.test!;
    const asyncEdge = edges.find((e) => e.signal === tested.name);
    const named = RESET_NAME.test(tested.name);
    if (!asyncEdge) {
      // A synchronous `if (x)` is a reset only if named like one or if its arm only clears registers
      // (zeros, or named constants such as an idle state): `if (load) q <= 4` is a load, not a reset.
      const clearing = t.thenAssigns.length > 0 && t.thenAssigns.every((a) => isClearingValue(a.rhs, scope));
      if (!named && !clearing) continue;
    }
    const add = (map: Map<string, ResetVote>) => {
      const prev = map.get(tested.name);
      map.set(tested.name, {
        activeLow: asyncEdge ? asyncEdge.edge === 'negedge' || tested.activeLow : tested.activeLow,
        async: Boolean(asyncEdge) || Boolean(prev?.async),
        votes: (prev?.votes ?? 0) + 1,
        named,
      });
    };
    add(votes.resets);
    for (const e of edges) {
      if (asyncEdges.has(e)) continue;
      const domain = votes.domains.get(e.signal) ?? new Map<string, ResetVote>();
      votes.domains.set(e.signal, domain);
      add(domain);
    }
  }
}

function portIndex(ports: PortInfo[], name: string): number {
  const i = ports.findIndex((p) => p.name === name);
  return i < 0 ? ports.length : i;
}

/** The most used edge signal; a clock-like name breaks ties, then port order. */
function best(entries: [string, number][], hint: RegExp, ports: PortInfo[]): string | null {
  if (!entries.length) return null;
  entries.sort(
    (a, b) =>
      b[1] - a[1] ||
      Number(hint.test(b[0])) - Number(hint.test(a[0])) ||
      portIndex(ports, a[0]) - portIndex(ports, b[0]),
  );
  return entries[0][0];
}

/**
 * State registers: a variable that a `case` switches on and that is assigned constant states (enum members,
 * parameters, literals), directly or through a next-state variable (`state <= next`).
 */
export function detectFsms(
  raw: RawModule,
  ports: PortInfo[],
  scope: Scope,
  enumOf: (name: string) => string[] | undefined,
): FsmInfo[] {
  const inputs = new Set(ports.filter((p) => p.direction === 'input').map((p) => p.name));
  const byLhs = new Map<string, RawAssign[]>();
  for (const a of raw.assigns) {
    const name = /^([A-Za-z_][\w$]*)$/.exec(a.lhs)?.[1];
    if (!name) continue;
    const list = byLhs.get(name) ?? [];
    list.push(a);
    byLhs.set(name, list);
  }
  const found = new Map<string, FsmInfo>();
  for (const c of raw.cases) {
    const v = c.subject.replace(/^\((.*)\)$/, '$1').trim();
    if (!IDENT.test(v) || inputs.has(v) || !byLhs.has(v)) continue;
    const constants = new Set<string>();
    const assigned = new Set<string>();
    const visitAssigns = (name: string, depth: number) => {
      for (const a of byLhs.get(name) ?? []) {
        const rhs = a.rhs.trim();
        if (IDENT.test(rhs) && !scope.isConstant(rhs)) {
          if (depth < 2 && rhs !== name) visitAssigns(rhs, depth + 1);
          continue;
        }
        for (const s of stateConstants(rhs, scope)) assigned.add(s);
      }
    };
    visitAssigns(v, 0);
    // one constant (a counter cleared to 0 and incremented) is not a state machine
    const members = enumOf(v);
    if (assigned.size < (members ? 1 : 2)) continue;
    for (const item of c.items) for (const l of item.labels) if (isConstantExpr(l, scope)) constants.add(l);
    const states = members ?? [...new Set([...constants, ...assigned])];
    if (states.length < 2) continue;
    const prev = found.get(v);
    if (prev) {
      for (const s of states) if (!prev.states.includes(s)) prev.states.push(s);
    } else found.set(v, { variable: v, states: [...states], range: c.range });
  }
  return [...found.values()];
}

/** Constant names or literals an assignment's right-hand side can yield: `S_IDLE`, `c ? A : B`, `2'd3`. */
function stateConstants(rhs: string, scope: Scope): string[] {
  const out: string[] = [];
  const parts = rhs.split(/\?|(?<!:):(?!:)|[()]/).map((p) => p.trim());
  // `'x` and `4'bxxxx` are "don't know", not states
  for (const p of parts)
    if (p && isConstantExpr(p, scope) && !/'[sS]?[bBoOdDhH]?\s*[0-9a-fA-F_]*[xXzZ?]/.test(p)) out.push(p);
  return out;
}
