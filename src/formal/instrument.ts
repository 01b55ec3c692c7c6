/**
 * The instrumented copy of a DUT: one `(* keep *)` flag register per arm asked about, set in exactly that arm and
 * cleared at the start of its always block, so "the flag is 1" means "the arm ran". An arm of an initial block
 * gets a wire instead: its path's parameter-only conditions, true whenever the arm runs. Many arms share one copy.
 * Compares against x/z constants (`=== 1'bx`) are rewritten to what two-state Verilator decides.
 */
import type { DesignAnalysis } from '../protocol';
import { fsmFlag, fsmIndex } from './fsmFlags';
import { findArm, initialBlocks, sourceText, type ArmPlan, type SourceText } from './sites';
import { lineStarts, offsetOf, skipBalanced, skipSpace } from './text';
import type { FormalTarget } from './types';

export interface Instrumented {
  /** Instrumented text per source file (same keys as the input). */
  files: Map<string, string>;
  /** Per target (same order): the flag that marks its arm and the arm in words, or why there is none. */
  flags: ({ flag: string; module: string; label: string } | { reason: string })[];
}

interface Wrap {
  start: number;
  end: number;
  open: string;
  close: string;
  /** Among wraps with the same span, the lower rank is outside. */
  rank: number;
}

export const FLAG_PREFIX = 'chorus_flag_';

/**
 * Verilator is two-state: `e === 'x` is never true and `e !== 'x` always is. Yosys would read the x bits as
 * values, so the constant is replaced by one no operand can equal: a 1 above 1024 zero bits.
 */
export function rewriteXCompares(text: string): string {
  const literal = String.raw`(?:\d+\s*)?'[sS]?[bBoOhHdD]\s*[0-9a-fA-F_xXzZ?]*[xXzZ?][0-9a-fA-F_xXzZ?]*|'[xXzZ]`;
  const never = "{1'b1, 1024'b0}";
  return text
    .replace(new RegExp(`(===|!==)(\\s*)(${literal})`, 'g'), (_m, op: string, sp: string) => `${op}${sp}${never}`)
    .replace(
      new RegExp(`(${literal})(\\s*)(===|!==)`, 'g'),
      (_m, _lit: string, sp: string, op: string) => `${never}${sp}${op}`,
    );
}

const ENDING_TASKS = /\$(?:error|fatal|warning|info|finish|stop)\b/g;

/**
 * Yosys runs an initial block when it reads the design, and stops at `$error` or `$finish` there (a configuration
 * check whose condition holds with the run's parameters). Those calls, as statements, become blanks of the same
 * length (offsets and lines are kept): they set no signal, and a model that runs on past a `$finish` only
 * reaches more, so no proof is lost to it and every witness is still replayed in Verilator.
 */
export function blankEndingTasks(text: string, spans: { start: number; end: number }[]): string {
  let out = '';
  let pos = 0;
  for (const m of text.matchAll(ENDING_TASKS)) {
    const at = m.index ?? 0;
    if (at < pos || /[\w$]/.test(text[at - 1] ?? '') || !spans.some((b) => b.start <= at && at < b.end)) continue;
    let end = at + m[0].length;
    const open = skipSpace(text, end);
    if (text[open] === '(') end = skipBalanced(text, open);
    if (end < 0 || text[skipSpace(text, end)] !== ';') continue;
    out += text.slice(pos, at) + text.slice(at, end).replace(/[^\n]/g, ' ');
    pos = end;
  }
  return out + text.slice(pos);
}

function applyWraps(text: string, wraps: Wrap[]): string {
  const sorted = [...wraps].sort((a, b) => a.start - b.start || b.end - a.end || a.rank - b.rank);
  const inserts: { at: number; closing: boolean; order: number; text: string }[] = [];
  sorted.forEach((w, i) => {
    inserts.push({ at: w.start, closing: false, order: i, text: w.open });
    inserts.push({ at: w.end, closing: true, order: i, text: w.close });
  });
  // At one offset: closers before openers; inner closers first; outer openers first.
  inserts.sort(
    (a, b) =>
      a.at - b.at ||
      (a.closing === b.closing ? (a.closing ? b.order - a.order : a.order - b.order) : a.closing ? -1 : 1),
  );
  let out = '';
  let pos = 0;
  for (const ins of inserts) {
    out += text.slice(pos, ins.at) + ins.text;
    pos = ins.at;
  }
  return out + text.slice(pos);
}

export function instrument(
  analysis: DesignAnalysis,
  sources: { file: string; content: string }[],
  targets: FormalTarget[],
): Instrumented {
  const texts = new Map<string, SourceText>(sources.map((s) => [s.file, sourceText(s.file, s.content)]));
  const wraps = new Map<string, Wrap[]>();
  const declarations = new Map<string, Map<string, string[]>>(); // file → module → flags
  const alwaysFlags = new Map<string, { file: string; start: number; end: number; flags: string[] }>();
  const byArm = new Map<string, string>();
  const flags: Instrumented['flags'] = [];
  // FSM points: flag wires (and each FSM's sampling registers, once) added before their module's end.
  const endText = new Map<string, Map<string, string[]>>(); // file → module → Verilog
  const fsms = targets.some((t) => t.kind === 'fsm_state' || t.kind === 'fsm_arc') ? fsmIndex(sources) : [];
  const samplers = new Set<string>();
  let next = 0;
  for (const t of targets) {
    if (t.kind === 'fsm_state' || t.kind === 'fsm_arc') {
      const f = fsmFlag(fsms, t, (m) => fsms.indexOf(m));
      if ('reason' in f) {
        flags.push({ reason: f.reason });
        continue;
      }
      const key = `fsm\u0000${f.fsm}\u0000${f.condition}`;
      let flag = byArm.get(key);
      if (!flag) {
        flag = `${FLAG_PREFIX}${next++}`;
        byArm.set(key, flag);
        const mods = endText.get(f.file) ?? new Map<string, string[]>();
        endText.set(f.file, mods);
        const list = mods.get(f.module) ?? [];
        mods.set(f.module, list);
        if (!samplers.has(f.fsm)) {
          samplers.add(f.fsm);
          list.push(f.sampler);
        }
        list.push(`(* keep *) wire ${flag} = ${f.condition};`);
      }
      flags.push({ flag, module: f.module, label: f.label });
      continue;
    }
    const arm = findArm(analysis, texts, t);
    if (arm.kind === 'none') {
      flags.push({ reason: arm.reason });
      continue;
    }
    // An initial block's if arm and its else span the same text: their conditions tell them apart.
    const key = `${arm.file}\u0000${arm.kind}\u0000${arm.start}\u0000${arm.end}${arm.kind === 'initial' ? `\u0000${arm.condition}` : ''}`;
    let flag = byArm.get(key);
    if (!flag) {
      flag = `${FLAG_PREFIX}${next++}`;
      byArm.set(key, flag);
      if (arm.kind === 'initial') addEnd(arm.file, arm.module, `(* keep *) wire ${flag} = ${arm.condition};`);
      else addArm(arm, flag);
    }
    flags.push({ flag, module: arm.module, label: arm.label });
  }

  function addEnd(file: string, module: string, verilog: string): void {
    const mods = endText.get(file) ?? new Map<string, string[]>();
    endText.set(file, mods);
    mods.set(module, [...(mods.get(module) ?? []), verilog]);
  }

  function addArm(arm: Exclude<ArmPlan, { kind: 'initial' }>, flag: string): void {
    const list = wraps.get(arm.file) ?? [];
    wraps.set(arm.file, list);
    if (arm.kind === 'arm')
      list.push({ start: arm.start, end: arm.end, open: `begin ${flag} = 1'b1; `, close: ' end', rank: 1 });
    else
      list.push({
        start: arm.start,
        end: arm.end,
        open: 'begin ',
        close: ` end else begin ${flag} = 1'b1; end`,
        rank: 0,
      });
    const akey = `${arm.file}\u0000${arm.always.start}`;
    const a = alwaysFlags.get(akey) ?? { file: arm.file, start: arm.always.start, end: arm.always.end, flags: [] };
    a.flags.push(flag);
    alwaysFlags.set(akey, a);
    const mods = declarations.get(arm.file) ?? new Map<string, string[]>();
    declarations.set(arm.file, mods);
    mods.set(arm.module, [...(mods.get(arm.module) ?? []), flag]);
  }

  for (const a of alwaysFlags.values()) {
    const list = wraps.get(a.file) ?? [];
    wraps.set(a.file, list);
    list.push({
      start: a.start,
      end: a.end,
      open: `begin ${a.flags.map((f) => `${f} = 1'b0;`).join(' ')} `,
      close: ' end',
      rank: -1,
    });
  }

  const files = new Map<string, string>();
  for (const s0 of sources) {
    const src = texts.get(s0.file)!;
    const initials = analysis.modules.filter((m) => m.file === s0.file).flatMap((m) => initialBlocks(src, m));
    const s = { file: s0.file, content: blankEndingTasks(s0.content, initials) };
    let text = applyWraps(s.content, wraps.get(s.file) ?? []);
    // Declarations go before each module's `endmodule` (Yosys reads a name declared after its use).
    const mods = declarations.get(s.file);
    const extra = endText.get(s.file);
    if (mods || extra) {
      const starts = lineStarts(s.content);
      const ends: { at: number; text: string }[] = [];
      for (const name of new Set([...(mods?.keys() ?? []), ...(extra?.keys() ?? [])])) {
        const m = analysis.modules.find((x) => x.name === name && x.file === s.file);
        if (!m) continue;
        const endOffset = offsetOf(starts, m.range.endLine, m.range.endColumn);
        const at = s.content.lastIndexOf('endmodule', endOffset);
        const text = [
          ...(mods?.get(name) ?? []).map((f) => `(* keep *) reg ${f};\n`),
          ...(extra?.get(name) ?? []).map((v) => `${v}\n`),
        ].join('');
        if (at >= 0) ends.push({ at, text });
      }
      // Offsets are of the original text: re-apply the wraps with the declarations as zero-width wraps.
      text = applyWraps(s.content, [
        ...(wraps.get(s.file) ?? []),
        ...ends.map((e) => ({ start: e.at, end: e.at, open: e.text, close: '', rank: 2 })),
      ]);
    }
    files.set(s.file, rewriteXCompares(text));
  }
  return { files, flags };
}
