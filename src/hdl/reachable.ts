/**
 * The values a variable can hold, when analysis can list them: a state register written only with constants,
 * directly or through a next-state variable (`state <= next; next = S_RUN;`). This is what proves an FSM's
 * `default` unreachable when its items do not cover every code. The answer errs on "unknown": any write it
 * cannot read as `name = <constant or listed variable>` — a slice, `++`, `+=`, a task or system call, an
 * instance output, a non-constant right-hand side — gives up, because a wrong "unreachable" would hide a hole.
 */
import type { PortInfo } from '../protocol';
import { mask } from './numbers';
import type { SignalTable } from './literals';
import type { RawAssign, RawCase, RawModule } from './raw';
import type { Scope } from './scope';
import { splitConditional } from './topLevel';

const IDENT = /^[A-Za-z_][\w$]*$/;
/** A state register and the next-state variables feeding it; longer chains are not followed. */
const MAX_VARIABLES = 8;
const MAX_VALUES = 4096;
const MAX_WIDTH = 64;

function mentions(text: string, name: string): boolean {
  const at = text.indexOf(name);
  if (at < 0) return false;
  return new RegExp(`(?<![\\w$.])${name.replace(/\$/g, '\\$')}(?![\\w$])`).test(text);
}

/** Names written by an assignment's left-hand side: `state`, `{a, b}`, `mem[i]` → mem, `s.f` → s. */
function targets(lhs: string): string[] {
  const out: string[] = [];
  let depth = 0;
  for (const m of lhs.matchAll(/[[\]()]|[A-Za-z_][\w$]*(?:\.[\w$]+)*/g)) {
    const t = m[0];
    if (t === '[' || t === '(') depth++;
    else if (t === ']' || t === ')') depth--;
    else if (depth === 0) out.push(t.split('.')[0]);
  }
  return out;
}

function unwrap(text: string): string {
  let t = text.trim();
  while (t.startsWith('(') && t.endsWith(')') && closesAtEnd(t)) t = t.slice(1, -1).trim();
  return t;
}

/** True when the `(` at 0 is closed by the last character. */
function closesAtEnd(t: string): boolean {
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '(') depth++;
    else if (t[i] === ')' && --depth === 0) return i === t.length - 1;
  }
  return false;
}

interface Sources {
  constants: bigint[];
  variables: string[];
}

/** The constants and variables a right-hand side can yield; undefined when it computes anything else. */
function rhsSources(text: string, scope: Scope, width: number, out: Sources): boolean {
  const t = unwrap(text);
  const arms = splitConditional(t);
  if (arms) return rhsSources(arms[0], scope, width, out) && rhsSources(arms[1], scope, width, out);
  if (IDENT.test(t) && !scope.isConstant(t)) {
    out.variables.push(t);
    return true;
  }
  const v = scope.evaluate(t);
  if (!v) return false;
  out.constants.push(v.value & mask(width));
  return true;
}

export interface HeldValuesInput {
  raw: RawModule;
  scope: Scope;
  signals: SignalTable;
  ports: PortInfo[];
}

/** Indexes a module's writes once, then answers `valuesOf` for any variable. */
export class HeldValues {
  private readonly byTarget = new Map<string, RawAssign[]>();
  private readonly declared = new Map<string, string | undefined>();
  private readonly driven = new Set<string>();

  constructor(private readonly input: HeldValuesInput) {
    for (const a of input.raw.assigns) {
      for (const name of new Set(targets(a.lhs))) {
        const list = this.byTarget.get(name) ?? [];
        list.push(a);
        this.byTarget.set(name, list);
      }
    }
    for (const d of input.raw.decls) if (!this.declared.has(d.name)) this.declared.set(d.name, d.init);
    for (const p of input.ports) {
      // inputs are driven from outside; outputs are the module's own variables
      if (p.direction !== 'output') this.driven.add(p.name);
      else if (!this.declared.has(p.name)) this.declared.set(p.name, undefined);
    }
  }

  /**
   * Every value `name` can hold (its initial value included), sorted; undefined when they cannot be listed.
   * With `unlessDefaultOf`, writes inside those cases' `default` arms are left out: they run only when the
   * subject holds a value no item matches, which is what the caller wants to rule out (by induction over
   * time: while every listed value has an item in each of those cases, their default arms never run).
   */
  valuesOf(name: string, unlessDefaultOf: readonly RawCase[] = []): bigint[] | undefined {
    const counts = (w: { underDefaultOf?: RawCase[] }) => !w.underDefaultOf?.some((c) => unlessDefaultOf.includes(c));
    const { scope, signals, raw } = this.input;
    const width = signals.width(name);
    if (width === undefined || width < 1 || width > MAX_WIDTH) return undefined;
    const values = new Set<bigint>();
    const seen = new Set<string>([name]);
    const queue = [name];
    while (queue.length) {
      const v = queue.shift()!;
      if (seen.size > MAX_VARIABLES || this.driven.has(v) || !this.declared.has(v)) return undefined;
      if (signals.width(v) !== width || signals.isArray(v)) return undefined;
      if (raw.otherWrites.some((w) => counts(w) && mentions(w.text, v))) return undefined;
      if (raw.instances.some((i) => i.connections.some((c) => c.port === '*' || mentions(c.expr, v)))) return undefined;
      const sources: Sources = { constants: [], variables: [] };
      // Before its first write a variable holds its initializer, or 0 in Verilator's two-state simulation.
      const init = this.declared.get(v);
      if (init === undefined) sources.constants.push(0n);
      else if (!rhsSources(init, scope, width, sources)) return undefined;
      for (const a of this.byTarget.get(v) ?? []) {
        if (!counts(a)) continue;
        if (a.compound || a.lhs.trim() !== v || !rhsSources(a.rhs, scope, width, sources)) return undefined;
      }
      for (const c of sources.constants) values.add(c);
      if (values.size > MAX_VALUES) return undefined;
      for (const next of sources.variables) {
        if (!seen.has(next)) {
          seen.add(next);
          queue.push(next);
        }
      }
    }
    return [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}
