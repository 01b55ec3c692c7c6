/**
 * Which arm of the RTL a Verilator line or branch point stands for, as text offsets to instrument: an `if` point
 * sits on its `if` keyword, an `else` point one column right of it, a `case` point on its item, a `block` point on
 * its always block. The arms come from the analysis' statement sites.
 */
import type { BranchSite, DesignAnalysis, ModuleInfo } from '../protocol';
import { commentsBlanked, functionSite } from './functionArms';
import { initialArm, parameterArm } from './initialArm';
import { siteEnd, siteRightAfter, siteStart, type SourceText } from './siteText';
import { labelColon, levelTested, offsetOf, skipBalanced, skipSpace, wordAt } from './text';
import type { FormalTarget } from './types';

export { initialBlocks } from './initialArm';
export { sourceText, type SourceText } from './siteText';

export type { AlwaysBody, Arm, ArmLookup, ArmPlan } from './arms';
import type { AlwaysBody, Arm, ArmLookup } from './arms';

function sameFile(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\\/g, '/');
  const [x, y] = [norm(a), norm(b)];
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

const start = siteStart;
const end = siteEnd;

/** The offset of an if site's `if` keyword (past a leading `else` and `unique`/`priority`), or -1. */
function ifKeyword(src: SourceText, s: BranchSite): number {
  let i = skipSpace(src.text, start(src, s));
  if (wordAt(src.text, i) === 'else') i = skipSpace(src.text, i + 4);
  const w = wordAt(src.text, i);
  if (w === 'unique' || w === 'unique0' || w === 'priority') i = skipSpace(src.text, i + w.length);
  return wordAt(src.text, i) === 'if' ? i : -1;
}

/** The first offset of an if arm's statement: past `if (cond)`. */
function ifArmStatement(src: SourceText, keyword: number): number {
  const open = skipSpace(src.text, keyword + 2);
  if (src.text[open] !== '(') return -1;
  const close = skipBalanced(src.text, open);
  return close < 0 ? -1 : skipSpace(src.text, close);
}

function alwaysBody(src: SourceText, s: BranchSite): AlwaysBody | undefined {
  const t = src.text;
  let i = skipSpace(t, start(src, s));
  const kw = wordAt(t, i);
  if (!/^always(_ff|_comb|_latch)?$/.test(kw)) return undefined;
  i = skipSpace(t, i + kw.length);
  if (t[i] === '@') {
    i = skipSpace(t, i + 1);
    if (t[i] === '*') i++;
    else if (t[i] === '(') i = skipBalanced(t, i);
    else while (i < t.length && /[\w$.]/.test(t[i])) i++;
    if (i < 0) return undefined;
    i = skipSpace(t, i);
  }
  return { start: i, end: end(src, s), keyword: skipSpace(t, start(src, s)), generate: s.within === 'generate' };
}

/** The if site whose keyword sits at a point; a lone if site on the point's line when the column does not match. */
function ifSiteAt(
  src: SourceText,
  sites: BranchSite[],
  line: number,
  column: number,
): { site: BranchSite; keyword: number } | undefined {
  const ifs = sites.filter((s) => s.kind === 'if').map((site) => ({ site, keyword: ifKeyword(src, site) }));
  const at = offsetOf(src.starts, line, column);
  const exact = column > 0 ? ifs.find((x) => x.keyword === at) : undefined;
  if (exact) return exact;
  const lineStart = src.starts[line - 1];
  const lineEnd = src.starts[line] ?? src.text.length;
  const onLine = ifs.filter((x) => x.keyword >= lineStart && x.keyword < lineEnd);
  return onLine.length === 1 ? onLine[0] : undefined;
}

/**
 * The case item whose label colon sits at a point: Verilator places an item's point on its colon, so an item whose
 * labels run over several lines (`AMO_SC,` … `AMO_MAXU: begin`) has its point on the last label's line.
 */
function itemByColon(src: SourceText, sites: BranchSite[], line: number, column: number): BranchSite | undefined {
  const lineStart = src.starts[line - 1];
  if (lineStart === undefined) return undefined;
  const lineEnd = src.starts[line] ?? src.text.length;
  const onLine = sites.filter((s) => {
    if (s.kind !== 'case_item' || s.range.startLine >= line || s.range.endLine < line) return false;
    const colon = labelColon(src.text, start(src, s), end(src, s));
    return colon >= lineStart && colon < lineEnd;
  });
  if (onLine.length <= 1 || column <= 0) return onLine.length === 1 ? onLine[0] : undefined;
  const at = offsetOf(src.starts, line, column);
  return onLine.find((s) => labelColon(src.text, start(src, s), end(src, s)) === at);
}

function armOf(src: SourceText, mod: ModuleInfo, target: FormalTarget): Arm | string {
  const sites = mod.sites;
  const c = target.comment;
  if (c === 'if' || c === 'elsif') {
    const found = ifSiteAt(src, sites, target.line, target.column);
    if (!found) return `no if statement found at line ${target.line}`;
    const s = ifArmStatement(src, found.keyword);
    if (s < 0) return `cannot read the if statement at line ${target.line}`;
    return {
      start: s,
      end: end(src, found.site),
      label: found.site.label,
      owner: { site: found.site, negated: false },
    };
  }
  if (c === 'else') {
    const found = ifSiteAt(src, sites, target.line, target.column - 1);
    if (!found) return `no if statement found at line ${target.line}`;
    const ifEnd = end(src, found.site);
    const next = siteRightAfter(src, sites, ifEnd);
    if (!next || wordAt(src.text, skipSpace(src.text, start(src, next))) !== 'else') {
      // No else written: the arm is "condition false", added as an else.
      const s = ifArmStatement(src, found.keyword);
      if (s < 0) return `cannot read the if statement at line ${target.line}`;
      return {
        start: s,
        end: ifEnd,
        label: `else of ${found.site.label}`,
        implicit: true,
        owner: { site: found.site, negated: true },
      };
    }
    // The else arm runs to the end of an else-if chain.
    let chainEnd = end(src, next);
    let cur: BranchSite | undefined = next;
    while (cur && cur.kind === 'if') {
      cur = siteRightAfter(src, sites, end(src, cur));
      if (!cur || wordAt(src.text, skipSpace(src.text, start(src, cur))) !== 'else') break;
      chainEnd = end(src, cur);
    }
    const elseKw = skipSpace(src.text, start(src, next));
    return {
      start: skipSpace(src.text, elseKw + 4),
      end: chainEnd,
      label: `else of ${found.site.label}`,
      owner: { site: found.site, negated: true },
    };
  }
  if (c === 'case') {
    const items = sites
      .filter((s) => (s.kind === 'case_item' || s.kind === 'case_default') && s.range.startLine === target.line)
      .sort((a, b) => a.range.startColumn - b.range.startColumn);
    const item =
      (items.length === 1 ? items[0] : items.filter((s) => s.range.startColumn <= Math.max(1, target.column)).pop()) ??
      itemByColon(src, sites, target.line, target.column);
    if (!item) return `no case item found at line ${target.line}`;
    const from = start(src, item);
    const to = end(src, item);
    let s: number;
    if (item.kind === 'case_default') {
      s = skipSpace(src.text, skipSpace(src.text, from) + 'default'.length);
      if (src.text[s] === ':') s = skipSpace(src.text, s + 1);
    } else {
      const colon = labelColon(src.text, from, to);
      if (colon < 0) return `cannot read the case item at line ${target.line}`;
      s = skipSpace(src.text, colon + 1);
    }
    return { start: s, end: to, label: item.label };
  }
  if (c === 'block' || c === '') {
    const always = sites.find((s) => s.kind === 'always' && s.range.startLine === target.line);
    if (!always) return `a block at line ${target.line} that is not an always block`;
    const body = alwaysBody(src, always);
    if (!body) return `cannot read the always block at line ${target.line}`;
    return { start: body.start, end: body.end, label: always.label };
  }
  return `a '${c}' point is not modelled`;
}

/**
 * The statement an always block with an asynchronous reset runs for the reset (`always @(posedge clk or negedge
 * rst_n) if (!rst_n) <this> else …`), as offsets; undefined when the block has one event; a reason when it has
 * several and that branch cannot be told.
 */
function resetBranch(
  src: SourceText,
  mod: ModuleInfo,
  always: BranchSite,
  body: AlwaysBody,
): { start: number; end: number } | string | undefined {
  const events = [...always.label.matchAll(/\b(posedge|negedge)\s+([A-Za-z_][\w$.]*)/g)].map((m) => ({
    edge: m[1],
    signal: m[2],
  }));
  if (events.length < 2) return undefined;
  const cannot = `its always block (line ${always.range.startLine}) has several edge events and CHORUS cannot tell its asynchronous reset branch`;
  // One clock and one reset: the reset is the event signal the block's first if tests for a level.
  if (events.length !== 2) return cannot;
  let i = skipSpace(src.text, body.start);
  if (wordAt(src.text, i) === 'begin') {
    i = skipSpace(src.text, i + 5);
    if (src.text[i] === ':')
      i = skipSpace(src.text, skipSpace(src.text, i + 1) + wordAt(src.text, skipSpace(src.text, i + 1)).length);
  }
  const top = mod.sites.find((s) => s.kind === 'if' && ifKeyword(src, s) === i);
  if (!top?.subject) return cannot;
  const subject = top.subject;
  const tested = events.filter((e) => levelTested(subject, e.signal));
  if (tested.length !== 1) return cannot;
  const reset = tested[0];
  const level = levelTested(subject, reset.signal);
  if (!level) return cannot;
  if ((level === 'low') === (reset.edge === 'negedge')) {
    const s = ifArmStatement(src, i);
    return s < 0 ? cannot : { start: s, end: end(src, top) };
  }
  const next = siteRightAfter(src, mod.sites, end(src, top));
  if (!next || wordAt(src.text, skipSpace(src.text, start(src, next))) !== 'else') return cannot;
  return { start: skipSpace(src.text, skipSpace(src.text, start(src, next)) + 4), end: end(src, next) };
}

/** Verilator's `block` point on a function's line (every call runs it), as the function's whole body. */
function functionBlock(
  src: SourceText,
  mod: ModuleInfo,
  target: FormalTarget,
  macroTexts: string[],
): ArmLookup | undefined {
  if (target.comment !== 'block' && target.comment !== '') return undefined;
  if (mod.sites.some((s) => s.kind === 'always' && s.range.startLine === target.line)) return undefined;
  const text = commentsBlanked(src);
  const from = src.starts[target.line - 1] ?? text.length;
  const at = text.slice(from, src.starts[target.line] ?? text.length).search(/\bfunction\b/);
  if (at < 0) return undefined;
  const fn = functionSite(src, text, mod, { start: from + at, end: from + at }, macroTexts);
  if (typeof fn === 'string') return { kind: 'none', reason: `the function at line ${target.line}: ${fn}` };
  return {
    kind: 'function',
    file: src.file,
    start: -1,
    end: -1,
    implicit: false,
    module: mod.name,
    label: `a call of ${fn.name}`,
    fn,
    ...(fn.witness ? { noWitness: fn.witness } : {}),
  };
}

/** The arm a point stands for, with its enclosing always block; `none` with the reason when it cannot be found. */
export function findArm(
  analysis: DesignAnalysis,
  sources: Map<string, SourceText>,
  target: FormalTarget,
  /** Texts where the design's macros are defined: the sources, their headers, the run's defines. */
  macroTexts: string[],
): ArmLookup {
  const mod = analysis.modules.find(
    (m) => sameFile(m.file, target.file) && target.line >= m.range.startLine && target.line <= m.range.endLine,
  );
  if (!mod) return { kind: 'none', reason: `no module of the design holds ${target.file}:${target.line}` };
  const src = [...sources.values()].find((s) => sameFile(s.file, mod.file));
  if (!src) return { kind: 'none', reason: `the source of ${mod.file} was not given` };
  const whole = functionBlock(src, mod, target, macroTexts);
  if (whole) return whole;
  const arm = armOf(src, mod, target);
  if (typeof arm === 'string') return { kind: 'none', reason: arm };
  // The innermost always block around the arm: its statement gets the flags' defaults.
  const enclosing = mod.sites
    .filter((s) => s.kind === 'always' && start(src, s) <= arm.start && end(src, s) >= arm.end)
    .sort((a, b) => start(src, b) - start(src, a))[0];
  if (!enclosing) {
    const routine = mod.sites.find(
      (s) => (s.within === 'function' || s.within === 'task') && start(src, s) <= arm.start && end(src, s) >= arm.end,
    )?.within;
    if (routine === 'function') {
      const text = commentsBlanked(src);
      const fn = functionSite(src, text, mod, arm, macroTexts);
      if (typeof fn === 'string')
        return { kind: 'none', reason: `the arm at line ${target.line} is in a function: ${fn}` };
      // Verilator counts no arm whose statement is a return: a trace cannot show it hit.
      const noWitness =
        fn.witness ??
        (!arm.implicit && wordAt(text, skipSpace(text, arm.start)) === 'return'
          ? `the arm at line ${target.line} is a return, which Verilator's coverage does not count: a trace is not shown to hit it`
          : undefined);
      return {
        kind: 'function',
        file: src.file,
        start: arm.start,
        end: arm.end,
        implicit: Boolean(arm.implicit),
        module: mod.name,
        label: arm.label,
        fn,
        ...(noWitness ? { noWitness } : {}),
      };
    }
    if (routine === 'task')
      return {
        kind: 'none',
        reason: `the arm at line ${target.line} is in a task: a flag set there would be driven by every always block that calls it, so one caller could hide another (not modelled)`,
      };
    return initialArm(src, mod, arm, target);
  }
  const always = alwaysBody(src, enclosing);
  if (!always) return { kind: 'none', reason: `cannot read the always block at line ${enclosing.range.startLine}` };
  // Yosys makes an asynchronous reset synchronous: at a cycle with the reset asserted the registers read as their
  // reset values. In simulation the reset branch also runs at the reset's own edge, with the values before it, so
  // an arm inside that branch can run in simulation where the model says it cannot. The branch itself runs
  // whenever the reset is asserted in both; the other arms run only at clock edges, alike in both.
  const branch = resetBranch(src, mod, enclosing, always);
  if (typeof branch === 'string')
    return { kind: 'none', reason: `the arm at line ${target.line} is not modelled: ${branch}` };
  if (
    branch &&
    branch.start <= arm.start &&
    arm.end <= branch.end &&
    !(branch.start === arm.start && branch.end === arm.end)
  ) {
    // The conditions on its path that read only parameters hold whenever it runs, at whatever instant: their
    // conjunction, folded with the run's parameters, proves an arm a parameter disables there (`if (FPU == 1)`).
    const why = `the arm at line ${target.line} is inside the asynchronous reset branch of its always block: that branch also runs at the reset's edge, with the registers' values before it, which the formal model (the reset made synchronous) does not see`;
    return (
      parameterArm(
        src,
        mod,
        arm,
        always,
        `${why}; only the conditions on its path that read parameters are modelled, and they can hold where the arm does not run`,
      ) ?? { kind: 'none', reason: `${why} (not modelled)` }
    );
  }
  return {
    kind: arm.implicit ? 'implicit_else' : 'arm',
    file: src.file,
    start: arm.start,
    end: arm.end,
    always,
    module: mod.name,
    label: arm.label,
  };
}
