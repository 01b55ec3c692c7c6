/**
 * Deep candidates from counter analysis: for each counter, input values that keep its counting condition true
 * (and its clears and loads quiet), held for as many cycles as its largest limit needs — times the periods of
 * the counters it waits on (seconds → minutes → hours). Random stimulus never holds a condition that long.
 */
import { conjuncts, evaluate, identifiersOf, type CounterInfo } from '../../hdl';
import type { DrivenInput } from './harness';
import { mergeRows, type Candidate, type Cycle, type Row } from './stimulus';

/** Longest hold tried: the compiled harness simulates a few million cycles a second on small designs. */
export const MAX_DEEP_CYCLES = 20_000_000;
/** Assignments tried when solving the counting condition for the inputs. */
const MAX_ASSIGNMENTS = 4096;
/** Counters whose hold is computed without a limit: full-width wrap only up to this many bits. */
const MAX_WRAP_WIDTH = 20;

function period(c: CounterInfo): bigint | undefined {
  const top = c.limits.length
    ? c.limits[c.limits.length - 1]
    : c.width !== undefined && c.width <= MAX_WRAP_WIDTH
      ? (1n << BigInt(c.width)) - 1n
      : undefined;
  return top === undefined ? undefined : top + 1n;
}

/** Cycles between two steps of a counter: 1, or the period of the slowest counter it waits on. */
function strideOf(c: CounterInfo, byName: Map<string, CounterInfo>, seen = new Set<string>()): bigint | undefined {
  if (seen.has(c.name)) return undefined;
  seen.add(c.name);
  let stride = 1n;
  for (const d of c.dependsOn) {
    const dep = byName.get(d);
    if (!dep) continue;
    const p = period(dep);
    const s = strideOf(dep, byName, new Set(seen));
    if (p === undefined || s === undefined) return undefined;
    if (s * p > stride) stride = s * p;
  }
  return stride;
}

type Verdict = boolean | undefined;

/** A condition's truth under the given input values, or undefined when it reads anything else. */
function truth(cond: string, values: Map<string, bigint>, params: Map<string, bigint>): Verdict {
  const ids = identifiersOf(cond);
  if (!ids.length || ids.some((id) => !values.has(id) && !params.has(id))) return undefined;
  const v = evaluate(cond, {
    value: (name) =>
      values.has(name) ? { value: values.get(name)! } : params.has(name) ? { value: params.get(name)! } : undefined,
  });
  return v === undefined ? undefined : v.value !== 0n;
}

export interface DeepPlan {
  /** The counter the hold takes past its limit; absent for a hold of every enable. */
  counter?: string;
  cycles: number;
  values: Cycle;
}

/**
 * Input values that satisfy every input-only conjunct of the counting conditions (the counter's and those it
 * waits on) while each clear or load decided by inputs alone stays false; undefined when none is found.
 */
function solve(
  chain: CounterInfo[],
  inputs: DrivenInput[],
  literals: bigint[],
  params: Map<string, bigint>,
): Cycle | undefined {
  const need = chain.flatMap((c) => c.countWhen.flatMap(conjuncts));
  const quiet = chain.flatMap((c) => c.loads.map((l) => l.when.flatMap(conjuncts)));
  const inputNames = new Set(inputs.map((i) => i.name));
  const mentioned = new Set<string>();
  for (const t of [...need, ...quiet.flat()])
    for (const id of identifiersOf(t)) if (inputNames.has(id)) mentioned.add(id);
  const vars = inputs.filter((i) => mentioned.has(i.name));
  const choices = vars.map((i) => {
    const m = (1n << BigInt(i.width)) - 1n;
    const set = new Set<bigint>([0n, 1n & m, m, ...literals.map((l) => l & m)]);
    return [...set].slice(0, 8);
  });
  let total = 1;
  for (const c of choices) total *= c.length;
  total = Math.min(total, MAX_ASSIGNMENTS);
  for (let n = 0; n < total; n++) {
    const values = new Map<string, bigint>();
    let k = n;
    vars.forEach((v, i) => {
      values.set(v.name, choices[i][k % choices[i].length]);
      k = Math.floor(k / choices[i].length);
    });
    if (need.some((c) => truth(c, values, params) === false)) continue;
    // A write decided by inputs alone must not happen; one that also reads state (a wrap at a limit) may.
    if (quiet.some((q) => q.length > 0 && q.every((c) => truth(c, values, params) === true))) continue;
    return inputs.map((i) => values.get(i.name) ?? (i.reset ? i.reset.active ^ 1n : 0n));
  }
  return undefined;
}

/** One hold per counter, shortest first; counters whose condition inputs cannot satisfy are left out. */
export function deepPlans(
  counters: CounterInfo[],
  inputs: DrivenInput[],
  literals: bigint[],
  params: Map<string, bigint>,
): DeepPlan[] {
  const byName = new Map(counters.map((c) => [c.name, c]));
  const plans: DeepPlan[] = [];
  for (const c of counters) {
    const p = period(c);
    const stride = strideOf(c, byName);
    if (p === undefined || stride === undefined) continue;
    // The largest limit reached, one more step to take the branch it guards, and a cycle to see the result.
    const cycles = stride * p + 2n;
    if (cycles > BigInt(MAX_DEEP_CYCLES)) continue;
    const chain = [c, ...c.dependsOn.map((d) => byName.get(d)).filter((d): d is CounterInfo => d !== undefined)];
    const values = solve(chain, inputs, literals, params);
    if (!values) continue;
    plans.push({ counter: c.name, cycles: Number(cycles), values });
  }
  plans.sort((a, b) => a.cycles - b.cycles);
  return plans.filter(
    (p, i) => !plans.slice(0, i).some((q) => q.cycles === p.cycles && q.values.every((v, j) => v === p.values[j])),
  );
}

/** Lengths of the holds tried on every clocked design, whatever its counters: a wheel of counters built from bit
 * slices (seconds → minutes → hours) or a prescaler the analysis cannot read still steps while its enables stay high. */
export const HOLD_CYCLES = [1 << 16, 1 << 20];

/**
 * Holds with every input but the reset at all ones (enables high, the reset released): tried once each after the
 * counter holds. A plan with the same values and at least as many cycles already covers a length.
 */
export function enableHolds(inputs: DrivenInput[], counterPlans: DeepPlan[]): DeepPlan[] {
  if (!inputs.some((i) => !i.reset)) return [];
  const values = inputs.map((i) => (i.reset ? i.reset.active ^ 1n : (1n << BigInt(i.width)) - 1n));
  const same = (p: DeepPlan) => p.values.every((v, j) => v === values[j]);
  return HOLD_CYCLES.filter((n) => !counterPlans.some((p) => same(p) && p.cycles >= n)).map((cycles) => ({
    cycles,
    values,
  }));
}

export function deepCandidate(plan: DeepPlan, prologue: Row[]): Candidate {
  return {
    rows: mergeRows([...prologue, { count: plan.cycles, values: plan.values }]),
    origin:
      plan.counter === undefined
        ? `every input held high for ${plan.cycles} cycles`
        : `held for ${plan.cycles} cycles to take counter ${plan.counter} past its limit`,
  };
}
