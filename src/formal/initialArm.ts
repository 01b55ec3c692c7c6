/**
 * Arms of `initial begin … end` blocks at module level. Such a block runs once, at time zero, whatever the
 * stimulus, so an arm runs only if every if condition on its path holds; those that read only parameters are
 * elaboration constants that Yosys folds with the run's parameters.
 */
import type { BranchSite, ModuleInfo } from '../protocol';
import type { Arm, ArmLookup } from './arms';
import { siteEnd as end, siteRightAfter, siteStart as start, type SourceText } from './siteText';
import { offsetOf, skipSpace, wordAt } from './text';
import type { FormalTarget } from './types';

/** `begin`…`end` nesting: the words that open and close a level (module-level generate regions included). */
const OPENERS = new Set(['begin', 'fork', 'generate']);
const CLOSERS = new Set(['end', 'join', 'join_any', 'join_none', 'endgenerate']);

/**
 * The `initial begin … end` blocks written at module level (outside any generate region), as offsets: `start` at the
 * keyword, `end` past the block's `end`. Comments and strings are skipped.
 */
export function initialBlocks(src: SourceText, mod: ModuleInfo): { start: number; end: number }[] {
  const t = src.text;
  const from = offsetOf(src.starts, mod.range.startLine, mod.range.startColumn);
  const to = offsetOf(src.starts, mod.range.endLine, mod.range.endColumn);
  const out: { start: number; end: number }[] = [];
  let depth = 0;
  let open: { start: number; depth: number } | undefined;
  let pendingInitial = -1;
  for (let i = skipSpace(t, from); i < to; i = skipSpace(t, i)) {
    if (t[i] === '"') {
      i++;
      while (i < to && t[i] !== '"') i += t[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    const w = /[A-Za-z_]/.test(t[i]) && !/[\w$]/.test(t[i - 1] ?? '') ? wordAt(t, i) : '';
    if (!w) {
      i++;
      continue;
    }
    if (pendingInitial >= 0) {
      // Only `initial begin`: a single-statement initial block is not modelled.
      if (w === 'begin') open = { start: pendingInitial, depth };
      pendingInitial = -1;
    }
    if (w === 'initial' && depth === 0 && !open) pendingInitial = i;
    else if (OPENERS.has(w)) depth++;
    else if (CLOSERS.has(w)) {
      depth--;
      if (open && depth === open.depth) {
        out.push({ start: open.start, end: i + w.length });
        open = undefined;
      }
    }
    i += w.length;
  }
  return out;
}

const CONSTANT_FUNCTIONS = new Set(['$clog2', '$signed', '$unsigned']);

/** Whether a condition's text reads only the module's parameters, literals and constant functions. */
function readsOnlyParameters(text: string, params: Set<string>): boolean {
  const token =
    /\s+|\d*'[sS]?[bBoOdDhH]\s*[0-9a-fA-F_xXzZ?]+|\d[\d_]*|\$[A-Za-z_]\w*|[A-Za-z_][\w$]*|&&|\|\||==|!=|<=|>=|<<|>>|[()~!&|^+\-*/%<>?:]/y;
  let i = 0;
  while (i < text.length) {
    token.lastIndex = i;
    const m = token.exec(text);
    if (!m) return false;
    const w = m[0];
    if (w.startsWith('$') ? !CONSTANT_FUNCTIONS.has(w) : /^[A-Za-z_]/.test(w) && !params.has(w)) return false;
    i += w.length;
  }
  return text.trim().length > 0;
}

/** `((c) ? 1'b1 : 1'b0)`: the condition's truth as `if` decides it, one bit; negated for an else arm. */
const truth = (condition: string, negated: boolean) =>
  `((${condition}) ? 1'b${negated ? 0 : 1} : 1'b${negated ? 1 : 0})`;

/**
 * The parameter-only conditions on an arm's path inside `block` (an initial block, an always block), as one
 * expression: every if condition on the path that reads only parameters, an else's negated. The arm runs only where
 * all of them hold, so their conjunction is 1 whenever the arm runs; Yosys folds it with the run's parameters, and
 * constant 0 means no simulation of this elaboration runs the arm. Undefined when no condition on the path is one.
 */
function parameterConditions(
  src: SourceText,
  mod: ModuleInfo,
  arm: Arm,
  block: { start: number; end: number },
): string | undefined {
  if (!arm.owner) return undefined;
  // A name the block declares itself (a variable in a named block) would shadow a parameter's: not a constant.
  const declared = [
    ...src.text
      .slice(block.start, block.end)
      .replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
      .matchAll(
        /\b(?:reg|logic|integer|int|bit|byte|shortint|longint|var|time|real|realtime|localparam|parameter)\b([^;]*);/g,
      ),
  ];
  const shadowed = new Set(declared.flatMap((m) => m[1].match(/[A-Za-z_][\w$]*/g) ?? []));
  const params = new Set(mod.params.map((p) => p.name).filter((n) => !shadowed.has(n)));
  const sites = mod.sites.filter((s) => start(src, s) >= block.start && end(src, s) <= block.end);
  /** The if statement an else (or an `else if`) belongs to: the if site that ends right before it. */
  const previousIf = (s: BranchSite) =>
    sites.find((p) => p.kind === 'if' && p !== s && siteRightAfter(src, sites, end(src, p)) === s);
  const conditions: string[] = [];
  const add = (s: BranchSite | undefined, negated: boolean) => {
    if (s?.subject !== undefined && readsOnlyParameters(s.subject, params)) conditions.push(truth(s.subject, negated));
  };
  /** An `else` site, or an if site written `else if`: the previous if's condition was false, and so on up the chain. */
  const chain = (s: BranchSite) => {
    const seen = new Set<BranchSite>();
    for (
      let cur: BranchSite | undefined = s;
      cur && !seen.has(cur) && wordAt(src.text, skipSpace(src.text, start(src, cur))) === 'else';
    ) {
      seen.add(cur);
      const prev = previousIf(cur);
      add(prev, true);
      cur = prev;
    }
  };
  add(arm.owner.site, arm.owner.negated);
  chain(arm.owner.site);
  const at = start(src, arm.owner.site);
  for (const s of sites) {
    if (s === arm.owner.site || !(start(src, s) < at && at < end(src, s))) continue;
    if (s.kind === 'if') {
      add(s, false);
      chain(s);
    } else if (s.kind === 'else') chain(s);
  }
  return conditions.length ? conditions.join(' & ') : undefined;
}

/**
 * An arm of an `initial` block. The block runs once, at time zero, whatever the stimulus: the arm runs only if every
 * if condition on its path holds. Its flag is the conjunction of those that read only parameters
 * (`parameterConditions`), a wire at the module's end.
 */
export function initialArm(src: SourceText, mod: ModuleInfo, arm: Arm, target: FormalTarget): ArmLookup {
  const notModelled = `the arm at line ${target.line} is not in an always block or an \`initial begin … end\` at module level (an initial block inside a generate region is not modelled)`;
  const block = initialBlocks(src, mod).find((b) => b.start <= arm.start && arm.end <= b.end);
  if (!block) return { kind: 'none', reason: notModelled };
  if (!arm.owner)
    return {
      kind: 'none',
      reason: `the arm at line ${target.line} is in an initial block but not an if arm: not modelled`,
    };
  return (
    parameterArm(src, mod, arm, block) ?? {
      kind: 'none',
      reason: `the arm at line ${target.line} is in an initial block, and no condition on its path reads only parameters: not modelled`,
    }
  );
}

/**
 * An arm whose flag is the wire of its path's parameter-only conditions inside `block` (`parameterConditions`);
 * undefined when no condition on the path is one. `noWitness`: why that wire at 1 is not a witness.
 */
export function parameterArm(
  src: SourceText,
  mod: ModuleInfo,
  arm: Arm,
  block: { start: number; end: number },
  noWitness?: string,
): ArmLookup | undefined {
  const condition = parameterConditions(src, mod, arm, block);
  if (!condition) return undefined;
  return {
    kind: 'initial',
    file: src.file,
    start: arm.start,
    end: arm.end,
    module: mod.name,
    label: arm.label,
    condition,
    ...(noWitness ? { noWitness } : {}),
  };
}
