/**
 * Procedural code read from the syntax tree: always blocks (events, reset tests), if arms and case items as
 * BranchSites, case statements, and assignments. Plain assignments are read from their text rather than
 * walked node by node, which keeps large files fast.
 */
import type { BranchSite } from '../protocol';
import type { RawAlways, RawAssign, RawCase, RawCaseItem, RawEvent, RawModule, RawOtherWrite } from './raw';
import { flatten, type Walker } from './walker';

/** Nodes that only wrap statements. */
const STATEMENT_CONTAINERS = new Set([
  'statement_or_null',
  'statement',
  'statement_item',
  'seq_block',
  'par_block',
  'procedural_timing_control_statement',
  'function_statement_or_null',
  'function_statement',
  'function_body_declaration',
  'task_body_declaration',
  'loop_statement',
  'wait_statement',
  'action_block',
]);

/** Statement-level nodes that are not statements: passing them does not end the search for a block's first statement. */
const NOT_A_STATEMENT = new Set([
  'event_control',
  'delay_control',
  'cycle_delay',
  'block_item_declaration',
  'simple_identifier',
  'one_line_comment',
  'block_comment',
  'attribute_instance',
  'always_keyword',
  'conditional_compilation_directive',
  // block punctuation (anonymous tokens, listed so no per-node "is it named" query is needed)
  'begin',
  'end',
  'fork',
  'join',
  'join_any',
  'join_none',
  ';',
  ':',
]);

/**
 * Statements that hold other statements, timing, a label or an attribute start with a keyword, `@`, `#`,
 * `name :` or `(*`; these are walked, the rest (assignments, calls) are read as text.
 */
const COMPOUND_STATEMENT =
  /^\s*(?:(?:if|case|casez|casex|unique|unique0|priority|randcase|randsequence|begin|fork|for|foreach|while|repeat|forever|do|wait|wait_order|assert|assume|cover|disable)\b|[#@]|\(\*|[A-Za-z_][\w$]*\s*:(?!:))/;

const TIMING = new Set(['event_control', 'delay_control']);
/** Where the search for an always block's timing control stops: past these it would find inner ones. */
const PAST_TIMING = new Set([
  'seq_block',
  'conditional_statement',
  'case_statement',
  'nonblocking_assignment',
  'blocking_assignment',
]);

interface StatementContext {
  module: RawModule;
  /** The always block being walked. */
  always?: RawAlways;
  /** True until the block's first statement is reached. */
  firstPending: boolean;
  /** How many if/case statements enclose the current one. */
  depth: number;
  /** Assignment lists that want every assignment walked (the first arm of each top-level `if`). */
  collectors: RawAssign[][];
  /** The case statements whose `default` arm is being walked. */
  defaultArms?: RawCase[] | undefined;
}

/** How deeply nested statements are followed (see `statement`). */
export const MAX_STATEMENT_NESTING = 400;

export class StatementReader {
  private nesting = 0;

  constructor(private readonly w: Walker) {}

  /** Statements of an initial block, a function or a task: sites and assignments, no clock or reset. */
  body(mod: RawModule): void {
    this.statements({ module: mod, firstPending: false, depth: 0, collectors: [] });
  }

  /** An always block: its site, events, top-level reset tests, and everything inside. */
  always(mod: RawModule): void {
    const range = this.w.range();
    let keyword = 'always';
    let timing = '';
    const block: RawAlways = { keyword, events: [], topIfs: [], range };
    this.w.each((t) => {
      if (t === 'always_keyword') keyword = block.keyword = this.w.text();
    });
    // The event control sits on the first statement: `always @(posedge clk) …`.
    this.w.find(
      TIMING,
      () => {
        timing = this.w.flatText();
        if (this.w.type === 'event_control') block.events = parseEvents(timing);
      },
      PAST_TIMING,
    );
    mod.always.push(block);
    mod.sites.push({ kind: 'always', label: timing ? `${keyword} ${timing}` : keyword, range });
    this.statements({ module: mod, always: block, firstPending: true, depth: 0, collectors: [] });
  }

  /** Walks the statements below the cursor. */
  private statements(ctx: StatementContext): void {
    this.w.each((t) => this.statement(t, ctx));
  }

  private statement(type: string, ctx: StatementContext): void {
    // Each level of statement nesting costs several stack frames here; a machine-written else-if chain of
    // thousands of arms must not overflow the stack. Statements nested deeper than this are not analysed.
    if (this.nesting >= MAX_STATEMENT_NESTING) return;
    this.nesting++;
    try {
      this.statementAt(type, ctx);
    } finally {
      this.nesting--;
    }
  }

  private statementAt(type: string, ctx: StatementContext): void {
    if (type === 'statement_or_null' || type === 'function_statement_or_null') {
      // Most statements are plain assignments: read them from the text instead of walking four wrapper
      // nodes each. Anything with nested statements or timing goes through the tree.
      const text = this.w.text();
      if (!COMPOUND_STATEMENT.test(text)) {
        this.simpleStatement(text, ctx);
        return;
      }
    }
    if (STATEMENT_CONTAINERS.has(type)) {
      this.statements(ctx);
      return;
    }
    if (NOT_A_STATEMENT.has(type)) return;
    const first = ctx.firstPending;
    ctx.firstPending = false;
    switch (type) {
      case 'conditional_statement':
        ctx.depth++;
        this.conditional(ctx, first);
        ctx.depth--;
        return;
      case 'case_statement':
        ctx.depth++;
        this.caseStatement(ctx);
        ctx.depth--;
        return;
      case 'nonblocking_assignment':
      case 'blocking_assignment':
      case 'operator_assignment':
        this.assignment(this.w.flatText(), ctx);
        return;
      case 'for_initialization':
      case 'for_step':
        this.otherWrite(this.w.flatText(), ctx);
        return;
      default:
        // Function and task bodies, loops in odd shapes: keep looking for statements inside.
        if (type.endsWith('_statement') || type.endsWith('_block') || type.endsWith('_declaration'))
          this.statements(ctx);
    }
  }

  private simpleStatement(text: string, ctx: StatementContext): void {
    const flat = flatten(text).replace(/;$/, '').trim();
    if (!flat) return; // a null statement `;`
    ctx.firstPending = false;
    this.assignment(flat, ctx);
  }

  private assignment(text: string, ctx: StatementContext): void {
    const split = splitAssignment(text);
    if (!split) {
      this.otherWrite(text, ctx);
      return;
    }
    const a: RawAssign = { lhs: split.lhs, rhs: split.rhs, line: this.w.line() };
    if (split.compound) a.compound = true;
    if (ctx.defaultArms?.length) a.underDefaultOf = [...ctx.defaultArms];
    ctx.module.assigns.push(a);
    ctx.module.exprs.push({ text: a.rhs, line: a.line });
    for (const c of ctx.collectors) c.push(a);
  }

  private otherWrite(text: string, ctx: StatementContext): void {
    const w: RawOtherWrite = { text, line: this.w.line() };
    if (ctx.defaultArms?.length) w.underDefaultOf = [...ctx.defaultArms];
    ctx.module.otherWrites.push(w);
  }

  private conditional(ctx: StatementContext, first: boolean): void {
    const mod = ctx.module;
    const topLevel = ctx.always !== undefined && ctx.depth === 1;
    let armStart = this.w.start();
    let cond: string | undefined;
    let lastCond = '';
    let afterElse = false;
    let arm = 0;
    this.w.each((t) => {
      switch (t) {
        case 'if':
          if (!afterElse) armStart = this.w.start();
          return;
        case 'else':
          armStart = this.w.start();
          afterElse = true;
          return;
        case 'cond_predicate':
          cond = this.w.flatText();
          mod.exprs.push({ text: cond, line: this.w.line() });
          return;
        case 'statement_or_null': {
          const range = this.w.range(armStart);
          let site: BranchSite;
          if (cond !== undefined) {
            site = { kind: 'if', label: `${afterElse ? 'else if' : 'if'} (${cond})`, subject: cond, range };
            lastCond = cond;
          } else site = { kind: 'else', label: `else of if (${lastCond})`, subject: lastCond, range };
          mod.sites.push(site);
          const collect = arm === 0 && topLevel && cond !== undefined;
          const thenAssigns: RawAssign[] = [];
          if (collect) {
            ctx.always?.topIfs.push({ cond: cond ?? '', thenAssigns, first });
            ctx.collectors.push(thenAssigns);
          }
          this.statement(t, ctx);
          if (collect) ctx.collectors.pop();
          cond = undefined;
          afterElse = false;
          arm++;
          return;
        }
        default:
          return;
      }
    });
  }

  private caseStatement(ctx: StatementContext): void {
    const mod = ctx.module;
    const c: RawCase = { keyword: 'case', inside: false, subject: '', items: [], range: this.w.range() };
    this.w.each((t) => {
      switch (t) {
        case 'case_keyword':
          c.keyword = this.w.text() as RawCase['keyword'];
          return;
        case 'case_expression':
          c.subject = this.w.flatText();
          return;
        case 'inside':
          c.inside = true;
          return;
        case 'case_item':
        case 'case_inside_item':
        case 'case_pattern_item': {
          if (t === 'case_inside_item') c.inside = true;
          const item: RawCaseItem = { labels: [], isDefault: false, line: this.w.line() };
          const range = this.w.range();
          this.w.each((u) => {
            if (u === 'default') item.isDefault = true;
            else if (u === 'case_item_expression' || u === 'pattern') item.labels.push(this.w.flatText());
            else if (u === 'range_list' || u === 'open_range_list') {
              this.w.each(() => {
                if (this.w.named) item.labels.push(this.w.flatText());
              });
            } else if (u === 'statement_or_null') {
              const of = `${c.keyword}${c.inside ? ' inside' : ''} (${c.subject})`;
              mod.sites.push(
                item.isDefault
                  ? { kind: 'case_default', label: `default item of ${of}`, subject: c.subject, range }
                  : {
                      kind: 'case_item',
                      label: `case item ${item.labels.join(', ')} of ${of}`,
                      subject: c.subject,
                      range,
                    },
              );
              if (item.isDefault) {
                const arms = ctx.defaultArms;
                ctx.defaultArms = [...(arms ?? []), c];
                this.statement(u, ctx);
                ctx.defaultArms = arms;
              } else this.statement(u, ctx);
            }
          });
          c.items.push(item);
          return;
        }
        default:
          return;
      }
    });
    mod.cases.push(c);
  }
}

/** `lhs <= rhs`, `lhs = rhs`, `lhs += rhs`: split at the first assignment operator outside brackets. */
export function splitAssignment(text: string): { lhs: string; rhs: string; compound: boolean } | undefined {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '[' || ch === '(' || ch === '{') depth++;
    else if (ch === ']' || ch === ')' || ch === '}') depth--;
    else if (depth === 0 && ch === '=' && text[i + 1] !== '=') {
      let j = i;
      // compound operators: <= += -= <<= >>>= …
      while (j > 0 && /[<>+\-*/%&|^]/.test(text[j - 1])) j--;
      const lhs = text.slice(0, j).trim();
      // `<=` is the non-blocking operator here, not a compound one
      const op = text.slice(j, i);
      if (lhs) return { lhs, rhs: text.slice(i + 1).trim(), compound: op !== '' && op !== '<' };
    }
  }
  return undefined;
}

/** `@(posedge clk or negedge rst_n)`, `@(a, b)`, `@*`. */
export function parseEvents(text: string): RawEvent[] {
  const inner = flatten(text)
    .replace(/^@\s*/, '')
    .replace(/^\((.*)\)$/, '$1')
    .trim();
  if (inner === '*' || inner === '(*)' || inner === '') return [];
  return inner
    .split(/\s+or\s+|\s*,\s*/)
    .map((part) => {
      const m = /^(posedge|negedge|edge)\s+(.+)$/.exec(part.trim());
      if (!m) return { edge: null, signal: part.trim() };
      // Macro expansions parenthesize their arguments: `posedge (clk_i)` is the edge of clk_i.
      const signal = m[2].trim().replace(/^\(\s*([A-Za-z_][\w$.]*)\s*\)$/, '$1');
      return { edge: m[1] === 'edge' ? null : (m[1] as 'posedge' | 'negedge'), signal };
    })
    .filter((e) => e.signal !== '');
}
