/**
 * The instrumented copy of a DUT: one `(* keep *)` flag register per arm asked about, set in exactly that arm and
 * cleared at the start of its always block, so "the flag is 1" means "the arm ran". An arm of an initial block
 * gets a wire instead: its path's parameter-only conditions, true whenever the arm runs. Many arms share one copy.
 * Compares against x/z constants (`=== 1'bx`) are rewritten to what two-state Verilator decides.
 */
import type { DesignAnalysis } from '../protocol';
import { fsmFlag, fsmIndex } from './fsmFlags';
import { commentsBlanked, functionCopy } from './functionArms';
import { findArm, initialBlocks, sourceText, type ArmPlan, type SourceText } from './sites';
import { macroBody, macroCallEnd } from './siteText';
import { offsetOf, skipBalanced, skipSpace, wordAt } from './text';
import type { FormalTarget } from './types';

export interface Instrumented {
  /** Instrumented text per source file (same keys as the input), every flag in it. */
  files: Map<string, string>;
  /**
   * Per target (same order): the flag that marks its arm and the arm in words, or why there is none. `noWitness`:
   * the flag may hold where the arm does not run (a function's call behind a condition), so a trace of it is not a
   * witness; its proofs stand.
   */
  flags: ({ flag: string; module: string; label: string; noWitness?: string } | { reason: string })[];
  /**
   * The copy with only these flags' sites instrumented, every other site left as written (a flag Yosys rejects is
   * left out and the others are still decided). Lines are the source's: nothing inserted holds a line break.
   */
  render(enabled: ReadonlySet<string>): Map<string, string>;
  /**
   * The flags whose inserted text sits on a line of a file: the ones an error Yosys reports there may be about.
   * Flags whose own arm is on the line come first; failing those, those whose always block or module end is.
   */
  flagsAt(file: string, line: number): string[];
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

type ArmSite = Exclude<ArmPlan, { kind: 'initial' } | { kind: 'function' }> & { flag: string };
type FunctionArm = Extract<ArmPlan, { kind: 'function' }> & { flag: string };

/** A flag written at its module's end: an initial arm's wire, an FSM point's wire and its FSM's sampler. */
interface EndSite {
  flag: string;
  file: string;
  module: string;
  verilog: string;
  sampler?: { key: string; text: string };
}

/**
 * Whether a macro body is more than one statement: a `;` outside brackets and begin…end with more text after it.
 * Such a call as an arm's statement runs only its first statement in the arm (the rest follows the if or case);
 * wrapping the call in `begin … end` would move the rest into the arm.
 */
function severalStatements(body: string): boolean {
  let text = body.replace(/"(?:[^"\\\n]|\\.)*"/g, '""').replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ' ');
  if (text.startsWith('(')) {
    // the formal arguments: `define M(a, b) …` (no space before the bracket)
    const close = skipBalanced(text, 0);
    text = close < 0 ? '' : text.slice(close);
  }
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const w = /[A-Za-z_]/.test(c) && !/[\w$]/.test(text[i - 1] ?? '') ? wordAt(text, i) : '';
    if (w) {
      if (/^(begin|fork|case|casez|casex)$/.test(w)) depth++;
      else if (/^(end|join|join_any|join_none|endcase)$/.test(w)) depth--;
      i += w.length - 1;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === ';' && depth === 0 && text.slice(i + 1).replace(/[\s;]/g, '') !== '') return true;
  }
  return false;
}

export function instrument(
  analysis: DesignAnalysis,
  sources: { file: string; content: string }[],
  targets: FormalTarget[],
  /** Header texts the sources include: where a macro an arm calls may be defined. */
  headers: string[] = [],
): Instrumented {
  const texts = new Map<string, SourceText>(sources.map((s) => [s.file, sourceText(s.file, s.content)]));
  const macroTexts = [...sources.map((s) => s.content), ...headers];
  const armSites: ArmSite[] = [];
  const functionArms: FunctionArm[] = [];
  const endSites: EndSite[] = [];
  const byArm = new Map<string, string>();
  const flags: Instrumented['flags'] = [];
  const fsms = targets.some((t) => t.kind === 'fsm_state' || t.kind === 'fsm_arc') ? fsmIndex(sources) : [];
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
        endSites.push({
          flag,
          file: f.file,
          module: f.module,
          verilog: `(* keep *) wire ${flag} = ${f.condition};`,
          sampler: { key: f.fsm, text: f.sampler },
        });
      }
      flags.push({ flag, module: f.module, label: f.label });
      continue;
    }
    const arm = findArm(analysis, texts, t, macroTexts);
    if (arm.kind === 'none') {
      flags.push({ reason: arm.reason });
      continue;
    }
    if (arm.kind !== 'initial') {
      const text = texts.get(arm.file)?.text ?? '';
      const call = text[arm.start] === '`' ? wordAt(text, arm.start + 1) : '';
      const body = call && macroCallEnd(text, arm.start) > 0 ? macroBody(call, macroTexts) : undefined;
      if (body !== undefined && severalStatements(body)) {
        flags.push({
          reason: `the arm at line ${t.line} is the macro call \`${call}, which expands to several statements: only the first is the arm's, so wrapping the call would change the design (not modelled)`,
        });
        continue;
      }
    }
    // An initial block's if arm and its else span the same text: their conditions tell them apart.
    const key = `${arm.file}\u0000${arm.kind}\u0000${arm.start}\u0000${arm.end}${arm.kind === 'initial' ? `\u0000${arm.condition}` : ''}${arm.kind === 'function' ? `\u0000${arm.fn.start}${arm.implicit ? '\u0000else' : ''}` : ''}`;
    let flag = byArm.get(key);
    if (!flag) {
      flag = `${FLAG_PREFIX}${next++}`;
      byArm.set(key, flag);
      if (arm.kind === 'initial')
        endSites.push({
          flag,
          file: arm.file,
          module: arm.module,
          verilog: `(* keep *) wire ${flag} = ${arm.condition};`,
        });
      else if (arm.kind === 'function') functionArms.push({ ...arm, flag });
      else armSites.push({ ...arm, flag });
    }
    flags.push({
      flag,
      module: arm.module,
      label: arm.label,
      ...((arm.kind === 'function' || arm.kind === 'initial') && arm.noWitness ? { noWitness: arm.noWitness } : {}),
    });
  }

  // Each always block with flags, numbered once: a block in a generate region gets a scope of that number.
  const alwaysKey = (a: ArmSite) => `${a.file}\u0000${a.always.keyword}`;
  const scopes = new Map<string, number>();
  for (const a of armSites) if (!scopes.has(alwaysKey(a))) scopes.set(alwaysKey(a), scopes.size);

  /** Where each module's `endmodule` sits, as an offset of its file's text. */
  const moduleEnd = (file: string, module: string): number => {
    const m = analysis.modules.find((x) => x.name === module && x.file === file);
    const src = texts.get(file);
    if (!m || !src) return -1;
    return src.text.lastIndexOf('endmodule', offsetOf(src.starts, m.range.endLine, m.range.endColumn));
  };

  // Each function with flagged arms, numbered once (its copy's name).
  const functionIndex = new Map<string, number>();
  for (const a of functionArms) {
    const k = `${a.file}\u0000${a.fn.start}`;
    if (!functionIndex.has(k)) functionIndex.set(k, functionIndex.size);
  }

  // Ending tasks blanked once; every render starts from these texts.
  const blanked = new Map<string, string>();
  for (const s of sources) {
    const src = texts.get(s.file)!;
    const initials = analysis.modules.filter((m) => m.file === s.file).flatMap((m) => initialBlocks(src, m));
    blanked.set(s.file, blankEndingTasks(s.content, initials));
  }

  function render(enabled: ReadonlySet<string>): Map<string, string> {
    const wraps = new Map<string, Wrap[]>();
    const push = (file: string, w: Wrap) => {
      const list = wraps.get(file) ?? [];
      wraps.set(file, list);
      list.push(w);
    };
    const groups = new Map<string, { site: ArmSite; flags: string[] }>();
    const ends = new Map<string, string[]>(); // file + module → Verilog
    const addEnd = (file: string, module: string, verilog: string) => {
      const k = `${file}\u0000${module}`;
      ends.set(k, [...(ends.get(k) ?? []), verilog]);
    };
    for (const a of armSites) {
      if (!enabled.has(a.flag)) continue;
      if (a.kind === 'arm')
        push(a.file, { start: a.start, end: a.end, open: `begin ${a.flag} = 1'b1; `, close: ' end', rank: 1 });
      else
        push(a.file, {
          start: a.start,
          end: a.end,
          open: 'begin ',
          close: ` end else begin ${a.flag} = 1'b1; end`,
          rank: 0,
        });
      const g = groups.get(alwaysKey(a)) ?? { site: a, flags: [] };
      groups.set(alwaysKey(a), g);
      g.flags.push(a.flag);
    }
    for (const [key, { site, flags: fs }] of groups) {
      push(site.file, {
        start: site.always.start,
        end: site.always.end,
        open: `begin ${fs.map((f) => `${f} = 1'b0;`).join(' ')} `,
        close: ' end',
        rank: -1,
      });
      const decls = fs.map((f) => `(* keep *) reg ${f};`).join(' ');
      // A block in a generate for is elaborated once per iteration: one module-level flag would have a driver per
      // copy. Declared in a scope of the block's own, each copy sets its own flag (proven only when every one is).
      if (site.always.generate)
        push(site.file, {
          start: site.always.keyword,
          end: site.always.end,
          open: `if (1'b1) begin : chorus_scope_${scopes.get(key)} ${decls} `,
          close: ' end else begin end',
          rank: -2,
        });
      else addEnd(site.file, site.module, decls);
    }
    // A function's flagged arms: one copy of the function per module, one wire per call, one bit per arm.
    const copies = new Map<string, FunctionArm[]>();
    for (const a of functionArms) {
      if (!enabled.has(a.flag)) continue;
      const k = `${a.file}\u0000${a.fn.start}`;
      copies.set(k, [...(copies.get(k) ?? []), a]);
    }
    for (const arms of copies.values()) {
      const { fn } = arms[0];
      const src = texts.get(fn.file);
      if (!src) continue;
      const k = functionIndex.get(`${fn.file}\u0000${fn.start}`) ?? 0;
      const copy = `chorus_fn_${k}`;
      const verilog = [functionCopy(fn, commentsBlanked(src), copy, arms)];
      fn.calls.forEach((args, c) =>
        verilog.push(`wire [${arms.length - 1}:0] chorus_fncall_${k}_${c} = ${copy}(${args});`),
      );
      arms.forEach((a, j) =>
        verilog.push(
          `(* keep *) wire ${a.flag} = ${fn.calls.map((_, c) => `chorus_fncall_${k}_${c}[${j}]`).join(' | ')};`,
        ),
      );
      addEnd(fn.file, fn.module, verilog.join(' '));
    }
    const sampled = new Set<string>();
    for (const e of endSites) {
      if (!enabled.has(e.flag)) continue;
      if (e.sampler && !sampled.has(e.sampler.key)) {
        sampled.add(e.sampler.key);
        addEnd(e.file, e.module, e.sampler.text.replace(/\n/g, ' '));
      }
      addEnd(e.file, e.module, e.verilog);
    }
    for (const [k, verilog] of ends) {
      const [file, module] = k.split('\u0000');
      const at = moduleEnd(file, module);
      // Before `endmodule` (Yosys reads a name declared after its use), on its line: lines stay the source's.
      if (at >= 0) push(file, { start: at, end: at, open: `${verilog.join(' ')} `, close: '', rank: 2 });
    }
    const files = new Map<string, string>();
    for (const s of sources)
      files.set(s.file, rewriteXCompares(applyWraps(blanked.get(s.file)!, wraps.get(s.file) ?? [])));
    return files;
  }

  function flagsAt(file: string, line: number): string[] {
    const src = texts.get(file);
    if (!src) return [];
    const lineOf = (offset: number) => {
      let lo = 0;
      let hi = src.starts.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (src.starts[mid] <= offset) lo = mid;
        else hi = mid - 1;
      }
      return lo + 1;
    };
    const own = armSites.filter((a) => a.file === file && (lineOf(a.start) === line || lineOf(a.end) === line));
    if (own.length) return own.map((a) => a.flag);
    const shared = [
      ...armSites.filter(
        (a) =>
          a.file === file &&
          [a.always.keyword, a.always.start, a.always.end, moduleEnd(a.file, a.module)].some((o) => lineOf(o) === line),
      ),
      ...endSites.filter((e) => e.file === file && lineOf(moduleEnd(e.file, e.module)) === line),
      ...functionArms.filter((a) => a.file === file && lineOf(moduleEnd(a.file, a.module)) === line),
    ];
    return [...new Set(shared.map((x) => x.flag))];
  }

  const all = new Set([
    ...armSites.map((a) => a.flag),
    ...endSites.map((e) => e.flag),
    ...functionArms.map((a) => a.flag),
  ]);
  return { files: render(all), flags, render, flagsAt };
}
