/**
 * Arms inside a module's function. Yosys inlines a call as an expression, with no register a flag could be set in,
 * so the flag is computed by a copy of the function (`chorus_fn_K`, declared at the module's end) that returns one
 * bit per flagged arm: 1 when that call ran the arm. The flag is the OR of the copy over the module's calls, each
 * with the call's own arguments.
 *
 * Sound only where a call's arguments, read at the module's end, are the values the call saw: calls in continuous
 * assignments and net declarations, and in always blocks whose arguments the block does not write with a blocking
 * assignment and does not declare. A call anywhere else (another function or task, an initial block, a generate
 * region, a parameter) leaves the arms unknown. The flag holds whenever a call's arguments would run the arm; a call
 * behind a condition (an if or case arm, `?:`, `&&`, `||`, a loop) may not run then, so such a flag's proofs stand
 * and its traces are not witnesses (`witness` says why).
 */
import type { BranchSite, ModuleInfo } from '../protocol';
import type { SourceText } from './siteText';
import { offsetOf, skipBalanced, skipSpace } from './text';

/** The function holding an arm, with what a copy of it needs; or why its arms are not modelled. */
export interface FunctionSite {
  file: string;
  module: string;
  name: string;
  /** Offsets of `function` and of the end of `endfunction`. */
  start: number;
  end: number;
  /** Offset just after the header's `;`. */
  headerEnd: number;
  /** The header after the name: `(input [3:0] v, input [3:0] lim)`, or '' (ports declared in the body). */
  ports: string;
  /** The type of the function's value as a variable declaration's type (`logic [3:0]`), or undefined for void. */
  valueType: string | undefined;
  /** Each call's arguments as written, on one line. */
  calls: string[];
  /** Why a trace of the flag is not a witness (a call that may not run when its arguments hold), if so. */
  witness?: string;
}

/** Comments as spaces (line breaks kept): offsets stay the source's, and nothing commented out is read. */
export function blankComments(text: string): string {
  return text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m) => m.replace(/[^\n]/g, ' '));
}

const DECLARATION = /\b(?:reg|logic|bit|int|integer|byte|shortint|longint|var|automatic|static)\b/;
const LOOP = /\b(?:for|foreach|while|repeat|do|forever)\b/;

const escape = (s: string) => s.replace(/[$.]/g, (m) => `\\${m}`);

function moduleSpan(src: SourceText, mod: ModuleInfo): { start: number; end: number } {
  return {
    start: offsetOf(src.starts, mod.range.startLine, mod.range.startColumn),
    end: offsetOf(src.starts, mod.range.endLine, mod.range.endColumn),
  };
}

function siteSpan(src: SourceText, s: BranchSite): { start: number; end: number } {
  return {
    start: offsetOf(src.starts, s.range.startLine, s.range.startColumn),
    end: offsetOf(src.starts, s.range.endLine, s.range.endColumn),
  };
}

/** The spans of the routines (`function … endfunction`, `task … endtask`) of a text, in order. */
function routineSpans(text: string, from: number, to: number): { kind: string; start: number; end: number }[] {
  const out: { kind: string; start: number; end: number }[] = [];
  const re = /\b(function|task)\b/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
    const close = new RegExp(`\\bend${m[1]}\\b`, 'g');
    close.lastIndex = m.index;
    const e = close.exec(text);
    if (!e) break;
    out.push({ kind: m[1], start: m.index, end: e.index + e[0].length });
    re.lastIndex = e.index + e[0].length;
  }
  return out;
}

/** Block nesting (begin/end, generate, case, fork) of a module's text at an offset: 0 at the module's own level. */
function nesting(text: string, from: number, at: number): number {
  let depth = 0;
  for (const m of text
    .slice(from, at)
    .matchAll(/\b(begin|generate|case|casez|casex|fork|end|endgenerate|endcase|join|join_any|join_none)\b/g))
    depth += /^(?:end|endgenerate|endcase|join|join_any|join_none)$/.test(m[1]) ? -1 : 1;
  return depth;
}

/** The statement around an offset of module-level text: from the `;` or block keyword before it to its `;`. */
function statementAround(text: string, from: number, at: number): { start: number; end: number } {
  const before = text.slice(from, at);
  let start = from + before.lastIndexOf(';') + 1;
  for (const m of before.matchAll(
    /\b(?:begin|end|else|endfunction|endtask|endcase|endgenerate|join|join_any|join_none)\b/g,
  ))
    start = Math.max(start, from + m.index + m[0].length);
  const semi = text.indexOf(';', at);
  return { start, end: semi < 0 ? text.length : semi };
}

/** Whether an always block writes a name with a blocking assignment (or `++`, `op=`), or declares it. */
function writtenOrDeclared(body: string, name: string, callStart: number, callEnd: number): boolean {
  const id = new RegExp(`\\b${escape(name)}\\b`, 'g');
  for (const m of body.matchAll(id)) {
    const i = m.index;
    if (i >= callStart && i < callEnd) continue;
    let j = i + name.length;
    for (;;) {
      const k = skipSpace(body, j);
      if (body[k] !== '[') break;
      const close = skipBalanced(body, k);
      if (close < 0) return true;
      j = close;
    }
    const after = body.slice(skipSpace(body, j), skipSpace(body, j) + 3);
    if (/^(?:=(?!=)|\+\+|--|[-+*/%&|^]=|<<=|>>=)/.test(after)) return true;
    if (/(?:\+\+|--)\s*$/.test(body.slice(Math.max(0, i - 3), i))) return true;
    // Inside a concatenation that is assigned: `{a, b} = …`.
    const open = body.lastIndexOf('{', i);
    if (open >= 0) {
      const close = skipBalanced(body, open);
      if (close > i && /^\s*=(?!=)/.test(body.slice(close))) return true;
    }
    const stmtStart = Math.max(body.lastIndexOf(';', i), body.lastIndexOf('(', i)) + 1;
    if (DECLARATION.test(body.slice(stmtStart, i))) return true;
  }
  return false;
}

/**
 * The function holding an arm of a module, with its calls; or why its arms are not modelled. `text` is the file's
 * text with comments blanked.
 */
export function functionSite(
  src: SourceText,
  text: string,
  mod: ModuleInfo,
  arm: { start: number; end: number },
): FunctionSite | string {
  const span = moduleSpan(src, mod);
  const routines = routineSpans(text, span.start, span.end);
  const fn = routines.find((r) => r.kind === 'function' && r.start <= arm.start && arm.end <= r.end);
  if (!fn) return 'CHORUS cannot find the function around it';
  const headerOpen = text.indexOf(';', span.start);
  if (nesting(text, headerOpen, fn.start) !== 0)
    return 'its function is declared inside a generate region or a block (not modelled)';
  const own = text.slice(fn.start, fn.end);
  if (/`\s*(?:ifdef|ifndef|else|elsif|endif|define|undef|include)\b/.test(own))
    return 'its function holds preprocessor directives, which a copy on one line cannot keep (not modelled)';
  if (/\b(?:output|inout|ref)\b/.test(own)) return 'its function has output arguments (not modelled)';
  // The header: `function [automatic|static] <type> name (ports);` or `function <type> name;`.
  let i = fn.start + 'function'.length;
  let depth = 0;
  let paren = -1;
  for (; i < fn.end; i++) {
    const c = text[i];
    if (c === '(' || c === '[') {
      if (c === '(' && depth === 0 && paren < 0) paren = i;
      depth++;
    } else if (c === ')' || c === ']') depth--;
    else if (c === ';' && depth === 0) break;
  }
  const headerEnd = i + 1;
  const nameEnd = paren >= 0 ? paren : i;
  const head = text.slice(fn.start + 'function'.length, nameEnd).trim();
  const named = /^(?:(automatic|static)\s+)?(.*?)\s*\b([A-Za-z_][\w$]*)$/s.exec(head);
  if (!named) return 'CHORUS cannot read its function header';
  const name = named[3];
  const declared = named[2].replace(/\s+/g, ' ').trim();
  const valueType =
    declared === 'void'
      ? undefined
      : declared === '' || /^(?:\[|signed\b|unsigned\b)/.test(declared)
        ? `logic ${declared}`.trim()
        : declared;
  const ports = paren >= 0 ? text.slice(paren, i).replace(/\s+/g, ' ') : '';
  if (paren >= 0 && /^\(\s*\)$/.test(ports)) return 'its function takes no arguments (not modelled)';

  // The calls: each must be where the copy, at the module's end, sees the call's own arguments.
  const alwaysSites = mod.sites.filter((s) => s.kind === 'always');
  const armSites = mod.sites.filter((s) => s.kind !== 'always');
  const calls: string[] = [];
  let witness: string | undefined;
  const inexact = (why: string) => (witness ??= why);
  const call = new RegExp(`\\b${escape(name)}\\s*\\(`, 'g');
  call.lastIndex = span.start;
  for (let m = call.exec(text); m && m.index < span.end; m = call.exec(text)) {
    const at = m.index;
    if (at >= fn.start && at < fn.end) continue;
    const open = text.indexOf('(', at);
    const close = skipBalanced(text, open);
    if (close < 0) return `CHORUS cannot read the call of ${name} at offset ${at}`;
    call.lastIndex = close;
    const args = text.slice(open + 1, close - 1).replace(/\s+/g, ' ');
    const line = src.starts.filter((s) => s <= at).length;
    const routine = routines.find((r) => r !== fn && r.start <= at && at < r.end);
    if (routine)
      return `${name} is called in a ${routine.kind} (line ${line}), whose arguments a copy cannot see (not modelled)`;
    const always = alwaysSites.map((s) => ({ site: s, ...siteSpan(src, s) })).find((s) => s.start <= at && at < s.end);
    if (always) {
      if (always.site.within === 'generate')
        return `${name} is called in an always block of a generate region (line ${line}) (not modelled)`;
      const body = text.slice(always.start, always.end);
      const names = args.match(/\b[A-Za-z_][\w$]*\b/g) ?? [];
      const written = names.find((n) => writtenOrDeclared(body, n, open - always.start, close - always.start));
      if (written)
        return `the call of ${name} at line ${line} reads '${written}', which its always block writes or declares: a copy at the module's end would not see the value the call saw (not modelled)`;
      if (
        armSites.some((s) => {
          const x = siteSpan(src, s);
          return x.start <= at && at < x.end && x.start >= always.start;
        })
      )
        inexact(`the call of ${name} at line ${line} is inside an if or case arm`);
      else if (LOOP.test(text.slice(always.start, at))) inexact(`the call of ${name} at line ${line} may be in a loop`);
    } else {
      if (nesting(text, headerOpen, at) !== 0)
        return `${name} is called inside a generate region or a block (line ${line}) (not modelled)`;
      const stmt = statementAround(text, headerOpen, at);
      const words = text.slice(stmt.start, at);
      if (!/^\s*(?:assign\b|(?:wire|logic|tri|wand|wor|uwire)\b[^=]*=)/.test(words))
        return `${name} is called at line ${line} outside an always block or a continuous assignment (not modelled)`;
    }
    const stmt = statementAround(text, always ? always.start : headerOpen, at);
    if (/\?|&&|\|\|/.test(text.slice(stmt.start, stmt.end)))
      inexact(`the call of ${name} at line ${line} is in an expression with ?:, && or ||`);
    calls.push(args);
  }
  if (!calls.length) return `${name} is never called in its module`;
  return {
    file: src.file,
    module: mod.name,
    name,
    start: fn.start,
    end: fn.end,
    headerEnd,
    ports,
    valueType,
    calls,
    ...(witness
      ? { witness: `${witness}: it may not run when its arguments would run the arm, so a trace is not a witness` }
      : {}),
  };
}

/**
 * A flagged arm of the copy: its statement's offsets in the source, and whether it is an added else; offsets below
 * 0 stand for the function's whole body (Verilator's `block` point on the function's line).
 */
export interface CopiedArm {
  start: number;
  end: number;
  implicit: boolean;
}

/**
 * The copy of a function that returns which of `arms` a call ran (bit j for arm j), on one line: comments gone, the
 * function's value renamed to a variable of its own, every `return` returning the bits.
 */
export function functionCopy(fn: FunctionSite, text: string, copyName: string, arms: CopiedArm[]): string {
  const width = arms.length;
  const inserts: { at: number; text: string; order: number }[] = [];
  // The function's own block (its body, run by every call): set from the start.
  const start = arms
    .map((a) => (a.start < 0 ? '1' : '0'))
    .reverse()
    .join('');
  arms.forEach((a, j) => {
    if (a.start < 0) return;
    const set = `chorus_ran[${j}] = 1'b1;`;
    if (a.implicit) {
      inserts.push({ at: a.start, text: 'begin ', order: 1 });
      inserts.push({ at: a.end, text: ` end else begin ${set} end`, order: 0 });
    } else {
      inserts.push({ at: a.start, text: `begin ${set} `, order: 1 });
      inserts.push({ at: a.end, text: ' end', order: 0 });
    }
  });
  // At one offset, closers first: an arm that ends where another starts.
  inserts.sort((x, y) => x.at - y.at || x.order - y.order);
  let body = '';
  let pos = fn.headerEnd;
  const bodyEnd = fn.end - 'endfunction'.length;
  for (const ins of inserts) {
    body += text.slice(pos, ins.at) + ins.text;
    pos = ins.at;
  }
  body += text.slice(pos, bodyEnd);
  body = body
    .replace(/\breturn\b[^;]*;/g, 'return chorus_ran;')
    .replace(new RegExp(`\\b${escape(fn.name)}\\b`, 'g'), 'chorus_ret')
    .replace(/\s+/g, ' ');
  const value = fn.valueType ? ` ${fn.valueType} chorus_ret;` : '';
  return `function automatic bit [${width - 1}:0] ${copyName}${fn.ports}; bit [${width - 1}:0] chorus_ran = ${width}'b${start};${value}${body} return chorus_ran; endfunction`;
}
