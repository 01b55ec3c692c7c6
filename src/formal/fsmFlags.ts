/**
 * Flags for FSM state and arc points. The simulator's probe (src/sim/coverage/fsmProbe.ts) counts at each event of the state
 * register's block, with `prev` the register at the event before and `now` at this one: a state S when
 * `prev != S && now == S`, an arc A->B when `prev == A && now == B`, a reset arc ANY->B when the reset condition
 * held at the event before and `now == B`. The flag here is the same condition on registers sampled at the same
 * clock edge (`chorus_fsm_prev_*` holds the state register one edge back), so "the flag is 1" is exactly "the probe
 * counts". A block with an asynchronous reset (`posedge clk or negedge rst_n`, `if (!rst_n) state <= IDLE`) is
 * flagged at the clock alone: the probe's count at the reset's edge is the pair (value before, reset state), which
 * the model (the reset made synchronous, the register read as its reset value in a cycle holding the reset) has in
 * the first cycle of the reset; docs/formal.md gives the whole argument, and a reset a register drives is left to
 * the prover (no proof is claimed behind it).
 */
import { resolve } from 'node:path';
import { fsmModels } from '../hdl';
import type { FsmModel } from '../protocol';
import { levelTested } from './text';
import type { FormalTarget } from './types';

export interface FsmFlag {
  file: string;
  module: string;
  /** The arm in words, as a verdict's `site`. */
  label: string;
  /** Verilog for the module's end: the sampling registers (once per FSM) and the flag wire. */
  condition: string;
  /** Key of the FSM the flag samples (its sampling registers are declared once). */
  fsm: string;
  sampler: string;
}

const SAMPLE_PREFIX = 'chorus_fsm_';

function parseComment(
  comment: string,
): { variable: string; state?: string; from?: string; to?: string; reset: boolean } | undefined {
  const sep = comment.indexOf('::');
  if (sep < 0) return undefined;
  const variable = comment.slice(0, sep);
  const rest = comment.slice(sep + 2);
  const arc = /^(.+?)->(.+?)(\[reset\])?$/.exec(rest);
  if (!arc) return { variable, state: rest, reset: false };
  return { variable, from: arc[1], to: arc[2], reset: Boolean(arc[3]) };
}

/** The FSMs of the sources, by file (resolved), module and register. */
export function fsmIndex(sources: { file: string; content: string }[]): FsmModel[] {
  return fsmModels(sources.map((s) => ({ name: s.file, content: s.content })));
}

/**
 * The event the sampling registers take: the block's one edge, or, for a block with an asynchronous reset, the
 * edge of the signal the reset arm does not test (the reset tested at the level its edge enters). Why not, else.
 */
function clockEvent(model: FsmModel): FsmModel['events'][number] | string {
  if (model.events.length === 1) return model.events[0];
  const why = `the state register '${model.variable}' is written on ${model.events.length} events`;
  const condition = model.reset;
  if (model.events.length !== 2 || !condition)
    return `${why} and CHORUS cannot tell its asynchronous reset arm: its FSM points are not decided`;
  const reset = model.events.filter((e) => {
    const level = levelTested(condition, e.signal);
    return level !== undefined && (level === 'low') === (e.edge === 'negedge');
  });
  if (reset.length !== 1)
    return `${why} and its reset condition '${condition}' does not test one of them at the level its edge enters: its FSM points are not decided`;
  return model.events[model.events[0] === reset[0] ? 1 : 0];
}

/** The flag condition for one FSM point, or why the point cannot be flagged exactly. */
export function fsmFlag(
  models: FsmModel[],
  t: FormalTarget,
  index: (m: FsmModel) => number,
): FsmFlag | { reason: string } {
  const c = parseComment(t.comment);
  if (!c) return { reason: `the FSM point '${t.comment}' names no state register: not decided` };
  const candidates = models.filter((m) => resolve(m.file) === resolve(t.file) && m.variable === c.variable);
  const model = candidates.find((m) =>
    c.state !== undefined
      ? m.states.some((s) => s.label === c.state && s.line === t.line)
      : m.arcs.some((a) => a.from === c.from && a.to === c.to && Boolean(a.reset) === c.reset && a.line === t.line),
  );
  if (!model)
    return {
      reason: `CHORUS's FSM analysis has no point '${t.comment}' at line ${t.line} (a point Verilator placed itself): not decided`,
    };
  const e = clockEvent(model);
  if (typeof e === 'string') return { reason: e };
  const k = index(model);
  const prev = `${SAMPLE_PREFIX}prev_${k}`;
  const fired = `${SAMPLE_PREFIX}fired_${k}`;
  const rc = `${SAMPLE_PREFIX}rc_${k}`;
  const sampler = [
    `reg [$bits(${model.variable})-1:0] ${prev};`,
    `reg ${fired} = 1'b0;`,
    `reg ${rc};`,
    `always @(${e.edge} ${e.signal}) begin ${prev} <= ${model.variable}; ${fired} <= 1'b1; ${rc} <= ${model.reset ? `(${model.reset}) ? 1'b1 : 1'b0` : "1'b0"}; end`,
  ].join('\n');
  const v = model.variable;
  let condition: string;
  let label: string;
  if (c.state !== undefined) {
    condition = `${fired} && ${prev} != ${c.state} && ${v} == ${c.state}`;
    label = `state ${c.state} of ${v} entered`;
  } else if (c.reset) {
    condition = `${fired} && ${rc} && ${v} == ${c.to}`;
    label = `reset of ${v} to ${c.to}`;
  } else {
    condition = `${fired} && ${prev} == ${c.from} && ${v} == ${c.to}`;
    label = `arc ${c.from}->${c.to} of ${v}`;
  }
  return {
    file: model.file,
    module: model.module,
    label,
    condition,
    fsm: `${resolve(model.file)}\u0000${model.module}\u0000${v}`,
    sampler,
  };
}
