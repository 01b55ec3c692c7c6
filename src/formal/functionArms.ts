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
import { macroBody, macroCalls, type SourceText } from './siteText';
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

/**
 * Comments as spaces (line breaks kept): offsets stay the source's, and nothing commented out is read. Strings are
 * matched first and kept, so `"/*"` or `"//"` in a string starts no comment.
 */
export function blankComments(text: string): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (m) =>
    m.startsWith('"') ? m : m.replace(/[^\n]/g, ' '),
  );
}

/** Each source's text with comments blanked, once per source (every function arm of a file reads it). */
const blankedTexts = new WeakMap<SourceText, string>();
export function commentsBlanked(src: SourceText): string {
  let t = blankedTexts.get(src);
  if (t === undefined) {
    t = blankComments(src.text);
    blankedTexts.set(src, t);
  }
  return t;
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

/** A routine prototype with no body of its own: a DPI import or export, `extern`, `pure virtual`. */
const PROTOTYPE =
  /(?:\b(?:import|export)\s*"DPI(?:-C)?"\s*(?:(?:context|pure)\s+)?(?:[A-Za-z_]\w*\s*=\s*)?|\bextern\s+|\bvirtual\s+)$/;

/** The spans of the routines (`function … endfunction`, `task … endtask`) of a text, in order. */
function routineSpans(text: string, from: number, to: number): { kind: string; start: number; end: number }[] {
  const out: { kind: string; start: number; end: number }[] = [];
  const re = /\b(function|task)\b/g;
  re.lastIndex = from;
  for (let m = re.exec(text); m && m.index < to; m = re.exec(text)) {
    if (PROTOTYPE.test(text.slice(Math.max(from, m.index - 80), m.index))) continue;
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
  // `else` is no boundary: a statement after it (`else assign y = f(a);` in a generate region) is conditional.
  for (const m of before.matchAll(/\b(?:begin|end|endfunction|endtask|endcase|endgenerate|join|join_any|join_none)\b/g))
    start = Math.max(start, from + m.index + m[0].length);
  const semi = text.indexOf(';', at);
  return { start, end: semi < 0 ? text.length : semi };
}

/** System functions that only read their arguments; any other `$name(…)` may write one (`$cast`, `$sscanf`). */
const READING_SYSTEM_CALLS = new Set([
  'signed',
  'unsigned',
  'clog2',
  'bits',
  'countones',
  'countbits',
  'onehot',
  'onehot0',
  'isunknown',
  'size',
  'high',
  'low',
  'left',
  'right',
  'display',
  'write',
  'strobe',
  'info',
  'warning',
  'error',
  'fatal',
]);
/** Words before `(` that open no call. */
const NOT_CALLS = new Set([
  'if',
  'case',
  'casez',
  'casex',
  'for',
  'while',
  'repeat',
  'wait',
  'return',
  'foreach',
  'iff',
]);

/** The brackets (`(`, `{`) still open at `at`, scanning from `from`. */
function openBrackets(text: string, from: number, at: number): number[] {
  const open: number[] = [];
  for (let i = from; i < at; i++) {
    const c = text[i];
    if (c === '(' || c === '{') open.push(i);
    else if ((c === ')' || c === '}') && open.length) open.pop();
  }
  return open;
}

/**
 * Whether an always block writes a name with a blocking assignment (or `++`, `op=`), as an argument a routine may
 * write (a task, a function with outputs, a system call such as `$cast`), inside an assigned concatenation or stream,
 * or declares it. `reading` is the routines whose arguments are only read.
 */
function writtenOrDeclared(
  body: string,
  name: string,
  callStart: number,
  callEnd: number,
  reading: ReadonlySet<string>,
): boolean {
  const id = new RegExp(`\\b${escape(name)}\\b`, 'g');
  for (const m of body.matchAll(id)) {
    const i = m.index;
    if (i >= callStart && i < callEnd) continue;
    if (body[i - 1] === '$' || body[i - 1] === '.' || body[i - 1] === '`') continue;
    let j = i + name.length;
    for (;;) {
      const k = skipSpace(body, j);
      if (body[k] === '.' && /[A-Za-z_]/.test(body[skipSpace(body, k + 1)] ?? '')) {
        j = skipSpace(body, k + 1);
        while (/[\w$]/.test(body[j] ?? '')) j++;
        continue;
      }
      if (body[k] !== '[') break;
      const close = skipBalanced(body, k);
      if (close < 0) return true;
      j = close;
    }
    const after = body.slice(skipSpace(body, j), skipSpace(body, j) + 3);
    if (/^(?:=(?!=)|\+\+|--|[-+*/%&|^]=|<<=|>>=)/.test(after)) return true;
    if (/(?:\+\+|--)\s*$/.test(body.slice(Math.max(0, i - 3), i))) return true;
    const stmtStart = body.lastIndexOf(';', i) + 1;
    for (const open of openBrackets(body, stmtStart, i)) {
      if (body[open] === '{') {
        // Inside a concatenation or stream that is assigned: `{a, {b, c}} = …`, `{>>{a}} = …`.
        const close = skipBalanced(body, open);
        if (close < 0 || /^\s*=(?!=)/.test(body.slice(close))) return true;
        continue;
      }
      // An argument of a call: written unless the routine only reads.
      let w = open;
      while (w > stmtStart && /\s/.test(body[w - 1])) w--;
      const word = /[A-Za-z_][\w$]*$/.exec(body.slice(Math.max(stmtStart, w - 64), w))?.[0];
      if (!word || NOT_CALLS.has(word)) continue;
      const system = body[w - word.length - 1] === '$';
      if (system ? !READING_SYSTEM_CALLS.has(word) : !reading.has(word)) return true;
    }
    if (DECLARATION.test(body.slice(Math.max(stmtStart, body.lastIndexOf('(', i) + 1), i))) return true;
  }
  return false;
}

const KEYWORDS = new Set(
  (
    'begin end if else case casez casex endcase default for foreach while repeat do return break continue ' +
    'unique unique0 priority inside input output inout ref reg logic bit int integer byte shortint longint var ' +
    'automatic static signed unsigned const localparam parameter genvar void real shortreal string type typedef'
  ).split(' '),
);

/**
 * The names a function's body reads from its module: every identifier that is not a port, a local, the function's
 * own name, or a keyword. A call in an always block sees them as the block left them at the call.
 */
function moduleNamesRead(fnText: string, name: string, ports: string): string[] {
  const declared = new Set<string>([name]);
  const words = (t: string) => t.match(/(?<![$`.\w])[A-Za-z_][\w$]*/g) ?? [];
  // Ports: the names in the header's list or in the body's port declarations; locals: the body's declarations.
  const declaration =
    /^\s*(?:input|reg|logic|bit|int|integer|byte|shortint|longint|var|automatic|static|const|real|string)\b/;
  const statements = fnText.split(';');
  const declNames = (stmt: string) =>
    stmt
      .replace(/\[[^\]]*\]/g, ' ')
      .split(',')
      .map((part) => words(part.split('=')[0]).pop())
      .filter((w): w is string => Boolean(w));
  for (const w of declNames(ports.replace(/^\(|\)$/g, ''))) declared.add(w);
  for (const stmt of statements) if (declaration.test(stmt)) for (const w of declNames(stmt)) declared.add(w);
  return [...new Set(words(fnText))].filter((w) => !declared.has(w) && !KEYWORDS.has(w));
}

/**
 * Why a macro could hide a call of the function, or change its copy; undefined when none can. A macro the module
 * calls may expand to a call (CHORUS sees no call in its text); a macro in the function's body may hold a `return`
 * or the function's name, which the copy must rewrite. A macro whose definition CHORUS does not have could do either.
 */
function macroConcern(name: string, moduleText: string, fnText: string, macroTexts: string[]): string | undefined {
  const own = new RegExp(`\\b${escape(name)}\\b`);
  // Every macro the module's text reaches, through the macros' own bodies too; for each, whether the function's
  // body reaches it.
  const reached = new Map<string, boolean>();
  const inBody = new Set(macroCalls(fnText));
  const work: [string, boolean][] = macroCalls(moduleText).map((m) => [m, inBody.has(m)]);
  for (let item = work.pop(); item; item = work.pop()) {
    const [macro, inFunction] = item;
    if (reached.get(macro) === true || (reached.has(macro) && !inFunction)) continue;
    reached.set(macro, inFunction);
    const body = macroBody(macro, macroTexts);
    if (body === undefined)
      return `its module calls the macro \`${macro}, whose definition CHORUS does not have: it may call ${name} (not modelled)`;
    if (own.test(body)) return `the macro \`${macro} mentions ${name}: a call through it is not seen (not modelled)`;
    if (inFunction && /\breturn\b/.test(body))
      return `its function calls the macro \`${macro}, which holds a return (not modelled)`;
    for (const m of macroCalls(body)) work.push([m, inFunction]);
  }
  return undefined;
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
  /** Texts where the design's macros are defined: the sources, their headers, the run's defines. */
  macroTexts: string[],
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
  const hidden = macroConcern(name, text.slice(span.start, span.end), own, macroTexts);
  if (hidden) return hidden;
  // What a call in an always block must see as the block left it: its arguments and the module names the body reads.
  const bodyReads = moduleNamesRead(text.slice(headerEnd, fn.end - 'endfunction'.length), name, ports);
  const moduleRoutines = routines.map((r) => ({
    ...r,
    text: text.slice(r.start, r.end),
    name: /^(?:function|task)\b[^;(]*?([A-Za-z_][\w$]*)\s*[(;]/.exec(text.slice(r.start, r.end))?.[1] ?? '',
  }));
  const reading = new Set(moduleRoutines.filter((r) => !/\b(?:output|inout|ref)\b/.test(r.text)).map((r) => r.name));
  // A copy that wrote a module variable would drive it a second time.
  const sideEffect = bodyReads.find((n) => writtenOrDeclared(own, n, -1, -1, reading));
  if (sideEffect) return `its function writes '${sideEffect}', a variable of its module (not modelled)`;

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
    // On inside the arguments: `f(f(a))` is two calls.
    call.lastIndex = open + 1;
    // A named port connection (`.f(x)`) or another scope's routine (`u.f(x)`, `p::f(x)`) is not this function.
    const before = text.slice(Math.max(span.start, at - 16), at).trimEnd();
    if (before.endsWith('.') || before.endsWith('::')) continue;
    const args = text.slice(open + 1, close - 1).replace(/\s+/g, ' ');
    const line = src.starts.filter((s) => s <= at).length;
    const routine = routines.find((r) => r !== fn && r.start <= at && at < r.end);
    if (routine)
      return `${name} is called in a ${routine.kind} (line ${line}), whose arguments a copy cannot see (not modelled)`;
    const always = alwaysSites.map((s) => ({ site: s, ...siteSpan(src, s) })).find((s) => s.start <= at && at < s.end);
    if (always) {
      if (always.site.within === 'generate')
        return `${name} is called in an always block of a generate region (line ${line}) (not modelled)`;
      // The block's text, and the text of each routine of the module it calls: a task may write a module variable.
      const block = text.slice(always.start, always.end);
      const called = moduleRoutines.filter(
        (r) => r.name && r.start !== fn.start && new RegExp(`\\b${escape(r.name)}\\s*[(;]`).test(block),
      );
      const body = [block, ...called.map((r) => r.text)].join('\n;\n');
      const names = [...new Set([...(args.match(/\b[A-Za-z_][\w$]*\b/g) ?? []), ...bodyReads])];
      const written = names.find((n) => writtenOrDeclared(body, n, open - always.start, close - always.start, reading));
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
  // Each insert with the span of the wrap it belongs to: at one offset, closers go before openers (an arm that ends
  // where another starts), inner closers before outer ones and outer openers before inner ones. An added else wraps
  // its if statement, which may be exactly an enclosing arm's statement: the added else is the inner one.
  const inserts: { at: number; text: string; closer: boolean; start: number; end: number; inner: boolean }[] = [];
  // The function's own block (its body, run by every call): set from the start.
  const start = arms
    .map((a) => (a.start < 0 ? '1' : '0'))
    .reverse()
    .join('');
  arms.forEach((a, j) => {
    if (a.start < 0) return;
    const set = `chorus_ran[${j}] = 1'b1;`;
    const wrap = { start: a.start, end: a.end, inner: a.implicit };
    inserts.push({ ...wrap, at: a.start, text: a.implicit ? 'begin ' : `begin ${set} `, closer: false });
    inserts.push({ ...wrap, at: a.end, text: a.implicit ? ` end else begin ${set} end` : ' end', closer: true });
  });
  // Wider first: a later start, or an earlier end, is inner; on the same span the added else is inner.
  const outerFirst = (x: (typeof inserts)[number], y: (typeof inserts)[number]) =>
    x.start - y.start || y.end - x.end || Number(x.inner) - Number(y.inner);
  inserts.sort(
    (x, y) => x.at - y.at || Number(y.closer) - Number(x.closer) || (x.closer ? -outerFirst(x, y) : outerFirst(x, y)),
  );
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
