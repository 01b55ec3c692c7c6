/**
 * Where the design's constants land in the top's input bits: an AFL-style dictionary for the model-free search.
 * A flat list of literals (literalsOf) cannot say that OPCODE_SYSTEM belongs in bits [6:0] of the instruction
 * word and funct7 values in bits [31:25]; this follows each compared expression back through continuous
 * assigns, combinational blocks, up to two register stages and the instance hierarchy to slices of top inputs.
 * Also: valid/ready-style handshake pairs and open-drain inputs that should echo an output, read from port names.
 */
import type { DesignAnalysis, ModuleInfo, PortInfo, SourceFile } from '../protocol';
import { balanced } from './behaviour';
import { connection, designSources } from './design';
import { mask, parseNumber } from './numbers';
import type { RawInstance, RawModule } from './raw';
import { moduleScope } from './resolve';
import type { Scope, TypeInfo } from './scope';
import { alignments, itemSpans, jointWords, sliceValues } from './jointFields';
import type { SliceValue, TracedSlice } from './jointFields';
import { splitConditional, splitTopLevel, topLevelColon } from './topLevel';

export interface InputField {
  /** A top input port. */
  input: string;
  /** Bit offset of the field from the port's least significant bit (not the declared index: `[31:2]` starts at 0). */
  lsb: number;
  width: number;
  /** Values the design compares the field with, ascending. */
  values: bigint[];
  /** Bits that matter (casez/casex items with `?`, x or z); absent when every bit does. */
  mask?: bigint;
  /** The first comparison or case item found that gives these values. */
  source: { file: string; line: number };
  /** The expression compared, as written there (`instr_rdata_i[6:0]`, `opcode`). */
  subject: string;
  /** Register stages between the input and that comparison. */
  stages: number;
  /**
   * A joint field: bits one comparison needs in the same word (a concatenated subject's parts, a case nested in
   * an outer case's item), with the subjects of the outer items joined.
   */
  joint?: { outer: string[] };
}

export interface DictionaryOptions {
  /** Top parameter overrides, as given to the analysis. */
  parameters?: Record<string, string> | undefined;
  /** The design's macros, as given to the analysis. */
  defines?: Record<string, string | undefined> | undefined;
  /** Register stages followed between an input and a comparison; default 2. */
  maxStages?: number;
  /** Narrower fields are left out (random stimulus already hits both values of one bit); default 2. */
  minWidth?: number;
}

/** Bounds: a design of thousands of lines stays well under a second, a pathological one stops early. */
const MAX_TRACE_STEPS = 200_000;
const MAX_CONTEXTS = 2_000;
const MAX_HOPS = 24;
const MAX_VALUES_PER_FIELD = 256;
const MAX_FIELDS = 4_000;
/** `inside {[a:b]}` ranges up to this many values are listed whole; wider ones by their ends. */
const MAX_RANGE_VALUES = 8;

// ---- bit structure of an expression --------------------------------------------------------------

/** What an expression's bits are made of, as far as they are copies of signal bits. */
type Bits =
  | { k: 'ref'; name: string; lo: number; width: number }
  /** Concatenation, most significant part first. */
  | { k: 'cat'; parts: Bits[] }
  /** A cast: the low `width` bits of `inner`, zero-extended. */
  | { k: 'fit'; width: number; inner: Bits }
  /** Any one of these (a `?:`): each is followed. */
  | { k: 'alt'; options: Bits[] }
  /** Not a copy of signal bits (a constant, arithmetic, a variable select); its width when known. */
  | { k: 'opaque'; width?: number | undefined };

interface Leaf {
  name: string;
  lo: number;
  width: number;
  /** Where these bits sit in the requested range. */
  offset: number;
}

function widthOf(b: Bits): number | undefined {
  switch (b.k) {
    case 'ref':
      return b.width;
    case 'opaque':
    case 'fit':
      return b.width;
    case 'cat': {
      let w = 0;
      for (const p of b.parts) {
        const pw = widthOf(p);
        if (pw === undefined) return undefined;
        w += pw;
      }
      return w;
    }
    default: {
      let w = 0;
      for (const o of b.options) {
        const ow = widthOf(o);
        if (ow === undefined) return undefined;
        w = Math.max(w, ow);
      }
      return w;
    }
  }
}

/** The signal bits behind bits [lo, lo+w) of an expression. */
function mapBits(b: Bits, lo: number, w: number, offset: number, out: Leaf[]): void {
  switch (b.k) {
    case 'ref': {
      const s = Math.max(lo, 0);
      const e = Math.min(lo + w, b.width);
      if (s < e) out.push({ name: b.name, lo: b.lo + s, width: e - s, offset: offset + (s - lo) });
      return;
    }
    case 'cat': {
      let pos = 0;
      for (let i = b.parts.length - 1; i >= 0; i--) {
        const pw = widthOf(b.parts[i]);
        if (pw === undefined) return; // the bits above an unknown width have no known place
        const s = Math.max(lo, pos);
        const e = Math.min(lo + w, pos + pw);
        if (s < e) mapBits(b.parts[i], s - pos, e - s, offset + (s - lo), out);
        pos += pw;
        if (pos >= lo + w) return;
      }
      return;
    }
    case 'alt':
      for (const o of b.options) mapBits(o, lo, w, offset, out);
      return;
    case 'fit': {
      const e = Math.min(lo + w, b.width);
      if (lo < e) mapBits(b.inner, lo, e - lo, offset, out);
      return;
    }
    default:
      return;
  }
}

function stripParens(text: string): string {
  let t = text.trim();
  while (t.startsWith('(') && t.endsWith(')') && balanced(t.slice(1, -1))) t = t.slice(1, -1).trim();
  return t;
}

/** A brace group that spans the whole text: `{a, b}` (not `{a} | {b}`). */
function wholeBraces(t: string): boolean {
  if (!t.startsWith('{') || !t.endsWith('}')) return false;
  let depth = 0;
  for (let i = 0; i < t.length; i++) {
    if (t[i] === '{') depth++;
    else if (t[i] === '}' && --depth === 0 && i < t.length - 1) return false;
  }
  return depth === 0;
}

// ---- one module ------------------------------------------------------------------------------------

interface Shape {
  width: number;
  /** Declared index of the least significant bit: 2 for `[31:2]`, 7 for `[0:7]`. */
  lsbIndex: number;
  ascending: boolean;
  /** False for multi-dimensional packed arrays, where a select picks elements. */
  selectable: boolean;
}

interface Driver {
  /** The bits of the signal written. */
  lo: number;
  width: number;
  rhs: Bits;
  /** Where those bits start in the right-hand side. */
  rhsLo: number;
  clocked: boolean;
}

interface ChildDriver {
  instance: number;
  port: string;
  lo: number;
  width: number;
  portLo: number;
}

interface Literal {
  subject: string;
  value: bigint;
  /** Don't-care bits. */
  wildcard: bigint;
  width?: number | undefined;
  line: number;
}

const NAME_SELECT = /^([A-Za-z_][\w$]*)\s*(\[[\s\S]*\])?$/;
/** `req.op`, `tl_i.a_address[7:2]`: a packed struct member, possibly selected. */
const MEMBER_SELECT = /^([A-Za-z_][\w$]*)((?:\s*\.\s*[A-Za-z_][\w$]*)+)\s*(\[[\s\S]*\])?$/;

class ModuleModel {
  readonly ports = new Map<string, PortInfo>();
  private readonly decls = new Map<string, RawModule['decls'][number]>();
  private readonly shapes = new Map<string, Shape | null>();
  private readonly parsed = new Map<string, Bits>();
  private writesByName?: Map<string, { lhs: string; rhs: string; clocked: boolean }[]>;
  private readonly driverCache = new Map<string, Driver[]>();
  private childMap?: Map<string, ChildDriver[]>;

  constructor(
    readonly info: ModuleInfo,
    readonly raw: RawModule,
    readonly scope: Scope,
    private readonly models: (name: string) => ModuleModel | undefined,
  ) {
    for (const p of info.ports) this.ports.set(p.name, p);
    for (const d of raw.decls) if (!this.decls.has(d.name)) this.decls.set(d.name, d);
  }

  shape(name: string): Shape | undefined {
    let s = this.shapes.get(name);
    if (s === undefined) {
      s = this.computeShape(name) ?? null;
      this.shapes.set(name, s);
    }
    return s ?? undefined;
  }

  private computeShape(name: string): Shape | undefined {
    const port = this.ports.get(name);
    if (port) {
      if (port.unpacked || port.width < 1) return undefined;
      const dims = port.rangeText?.match(/\[[^\]]*\]/g) ?? [];
      return this.shapeOf(port.width, dims);
    }
    const d = this.decls.get(name);
    if (!d || d.unpacked.length) return undefined;
    const width = this.scope.resolveType(d.type).width;
    return width !== undefined && width > 0 ? this.shapeOf(width, d.type.packed) : undefined;
  }

  private shapeOf(width: number, dims: string[]): Shape {
    if (dims.length !== 1) return { width, lsbIndex: 0, ascending: false, selectable: dims.length === 0 };
    const inner = dims[0].slice(1, -1);
    const colon = topLevelColon(inner);
    const a = colon >= 0 ? this.scope.evaluate(inner.slice(0, colon)) : undefined;
    const b = colon >= 0 ? this.scope.evaluate(inner.slice(colon + 1)) : undefined;
    if (!a || !b) return { width, lsbIndex: 0, ascending: false, selectable: false };
    return { width, lsbIndex: Number(b.value), ascending: a.value < b.value, selectable: true };
  }

  /** The bit structure of an expression of this module (memoized: subjects and connections recur). */
  bits(text: string): Bits {
    let b = this.parsed.get(text);
    if (!b) {
      b = this.parse(text, 0);
      this.parsed.set(text, b);
    }
    return b;
  }

  private constant(text: string): Bits {
    const v = this.scope.evaluate(text);
    return { k: 'opaque', width: v?.width };
  }

  private parse(text: string, depth: number): Bits {
    const t = stripParens(text);
    if (!t || depth > 32) return { k: 'opaque' };
    const arms = splitConditional(t);
    if (arms) return { k: 'alt', options: arms.map((a) => this.parse(a.trim(), depth + 1)) };
    if (wholeBraces(t)) return this.concatenation(t.slice(1, -1), depth);
    const sign = /^\$(?:signed|unsigned)\s*\(([\s\S]*)\)$/.exec(t);
    if (sign && balanced(sign[1])) return this.parse(sign[1], depth + 1);
    // `opcode_e'(instr[6:0])`, `7'(x)`, `signed'(x)`
    const cast = /^([A-Za-z_][\w$]*(?:::[A-Za-z_][\w$]*)?|\d+)\s*'\s*\(([\s\S]*)\)$/.exec(t);
    if (cast && balanced(cast[2])) {
      const inner = this.parse(cast[2], depth + 1);
      if (cast[1] === 'signed' || cast[1] === 'unsigned') return inner;
      const width = /^\d/.test(cast[1]) ? Number(cast[1]) : this.scope.typeWidth(cast[1]);
      return width !== undefined && width > 0 ? { k: 'fit', width, inner } : { k: 'opaque' };
    }
    const member = MEMBER_SELECT.exec(t);
    if (member) return this.member(member[1], member[2], member[3]);
    const m = NAME_SELECT.exec(t);
    if (m) {
      const [, name, select] = m;
      if (this.scope.isConstant(name)) return this.constant(t);
      const shape = this.shape(name);
      if (!select) return shape ? { k: 'ref', name, lo: 0, width: shape.width } : { k: 'opaque' };
      return this.select(name, select.slice(1, -1), shape);
    }
    if (parseNumber(t)) return this.constant(t);
    if (/^[\w$]+::[\w$]+$/.test(t)) return this.constant(t);
    // Anything else computes its value: only a constant has a known width worth keeping.
    return /^[\w$:'\s()+\-*]+$/.test(t) ? this.constant(t) : { k: 'opaque' };
  }

  private concatenation(inner: string, depth: number): Bits {
    const rep = /^([^{},]+?)\s*\{([\s\S]*)\}$/.exec(inner.trim());
    if (rep && wholeBraces(`{${rep[2]}}`)) {
      const n = this.scope.evaluate(rep[1]);
      const body = widthOf(this.concatenation(rep[2], depth + 1));
      return { k: 'opaque', width: n && body !== undefined ? Number(n.value) * body : undefined };
    }
    return { k: 'cat', parts: splitTopLevel(inner).map((p) => this.parse(p, depth + 1)) };
  }

  /**
   * A member of a packed struct: the first member is the most significant. A member's own select counts from
   * its bit 0 (members declared `[w-1:0]`, as nearly all are).
   */
  private member(name: string, path: string, select: string | undefined): Bits {
    const shape = this.shape(name);
    const d = this.decls.get(name);
    const portType = this.raw.ports.find((p) => p.name === name)?.type;
    const type = portType?.userType || portType?.structDef ? portType : d?.type;
    if (!shape || !type) return { k: 'opaque' };
    let t: TypeInfo | undefined = this.scope.resolveType(type);
    let lo = 0;
    let width = shape.width;
    for (const f of path
      .split('.')
      .map((x) => x.trim())
      .filter(Boolean)) {
      const fields: Record<string, TypeInfo> | undefined = t?.fields;
      if (!fields?.[f]) return { k: 'opaque' };
      const members = Object.values(fields);
      const widths = members.map((x) => x.width);
      if (widths.some((x) => x === undefined)) return { k: 'opaque' };
      const sum = widths.reduce((a, b) => a! + b!, 0)!;
      // a packed union's members all sit at bit 0; a struct's sum to its width
      const names = Object.keys(fields);
      const after = sum === width ? widths.slice(names.indexOf(f) + 1).reduce((a, b) => a! + b!, 0)! : 0;
      t = fields[f];
      lo += after;
      width = t.width!;
    }
    const ref: Bits = { k: 'ref', name, lo, width };
    if (!select) return ref;
    const sub = this.select(name, select.slice(1, -1), { width, lsbIndex: 0, ascending: false, selectable: true });
    return sub.k === 'ref' ? { ...sub, lo: sub.lo + lo } : sub;
  }

  /** `x[7:4]`, `x[3]`, `x[base +: 4]` with constant indices, in bit offsets from the LSB. */
  private select(name: string, inner: string, shape: Shape | undefined): Bits {
    if (inner.includes('][')) return { k: 'opaque' };
    const offset = (i: bigint) => (shape!.ascending ? shape!.lsbIndex - Number(i) : Number(i) - shape!.lsbIndex);
    const plus = /^([\s\S]*?)\s*([+-]):\s*([\s\S]+)$/.exec(inner);
    let hi: bigint | undefined;
    let lo: bigint | undefined;
    let width: number | undefined;
    if (plus) {
      const w = this.scope.evaluate(plus[3]);
      if (!w || w.value < 1n) return { k: 'opaque' };
      width = Number(w.value);
      const base = this.scope.evaluate(plus[1])?.value;
      if (base !== undefined) {
        // `+:` counts up from base, `-:` down, in declared index order
        [lo, hi] = plus[2] === '+' ? [base, base + w.value - 1n] : [base - w.value + 1n, base];
      }
    } else {
      const colon = topLevelColon(inner);
      if (colon < 0) {
        width = 1;
        hi = lo = this.scope.evaluate(inner)?.value;
      } else {
        hi = this.scope.evaluate(inner.slice(0, colon))?.value;
        lo = this.scope.evaluate(inner.slice(colon + 1))?.value;
        if (hi !== undefined && lo !== undefined) width = Number(hi > lo ? hi - lo : lo - hi) + 1;
      }
    }
    if (!shape?.selectable || hi === undefined || lo === undefined || width === undefined)
      return { k: 'opaque', width: shape?.selectable ? width : undefined };
    const a = offset(hi);
    const b = offset(lo);
    const from = Math.min(a, b);
    if (from < 0 || from + width > shape.width) return { k: 'opaque', width };
    return { k: 'ref', name, lo: from, width };
  }

  /** What writes each signal: assigns, combinational and clocked procedural writes, initialized nets. */
  drivers(name: string): Driver[] {
    let list = this.driverCache.get(name);
    if (!list) {
      this.writesByName ??= this.indexWrites();
      list = [];
      for (const w of this.writesByName.get(name) ?? []) {
        const left = this.bits(w.lhs);
        const width = widthOf(left);
        if (width === undefined) continue;
        const leaves: Leaf[] = [];
        mapBits(left, 0, width, 0, leaves);
        for (const l of leaves)
          if (l.name === name)
            list.push({ lo: l.lo, width: l.width, rhs: this.bits(w.rhs), rhsLo: l.offset, clocked: w.clocked });
      }
      this.driverCache.set(name, list);
    }
    return list;
  }

  /**
   * Writes by the names on their left-hand side, not yet parsed: a decoder has thousands of assignments and a
   * trace reads a few of them.
   */
  private indexWrites(): Map<string, { lhs: string; rhs: string; clocked: boolean }[]> {
    const map = new Map<string, { lhs: string; rhs: string; clocked: boolean }[]>();
    const blocks = this.raw.always.map((a) => ({
      start: a.range.startLine,
      end: a.range.endLine,
      clocked: a.keyword === 'always_ff' || a.events.some((e) => e.edge !== null),
    }));
    const add = (lhs: string, rhs: string, clocked: boolean) => {
      for (const name of new Set(lhs.replace(/\[[^\]]*\]/g, ' ').match(/(?<![\w$'.])[A-Za-z_][\w$]*/g) ?? [])) {
        const list = map.get(name) ?? [];
        list.push({ lhs, rhs, clocked });
        map.set(name, list);
      }
    };
    for (const a of this.raw.assigns) {
      if (a.compound) continue;
      if (a.continuous) {
        add(a.lhs, a.rhs, false);
        continue;
      }
      // Writes outside always blocks (initial blocks, functions, tasks) do not drive the signal as logic.
      const block = blocks.find((b) => a.line >= b.start && a.line <= b.end);
      if (block) add(a.lhs, a.rhs, block.clocked);
    }
    for (const d of this.raw.decls) if (d.init !== undefined && d.type.netType) add(d.name, d.init, false);
    return map;
  }

  /** Signals of this module driven by a child instance's output port. */
  childDrivers(name: string): ChildDriver[] {
    this.childMap ??= this.buildChildDrivers();
    return this.childMap.get(name) ?? [];
  }

  private buildChildDrivers(): Map<string, ChildDriver[]> {
    const map = new Map<string, ChildDriver[]>();
    this.raw.instances.forEach((inst, instance) => {
      const child = this.models(inst.module);
      if (!child) return;
      for (const p of child.info.ports) {
        if (p.direction !== 'output') continue;
        const expr = connection(inst, child.info, p.name);
        const w = child.shape(p.name)?.width;
        if (!expr || w === undefined) continue;
        const leaves: Leaf[] = [];
        mapBits(this.bits(expr), 0, w, 0, leaves);
        for (const l of leaves) {
          const list = map.get(l.name) ?? [];
          list.push({ instance, port: p.name, lo: l.lo, width: l.width, portLo: l.offset });
          map.set(l.name, list);
        }
      }
    });
    return map;
  }

  private literalList?: Literal[];

  /** The module's compared constants: the analysis's literals, `inside` sets and `case … inside` ranges. */
  literals(): Literal[] {
    return (this.literalList ??= this.collectLiterals());
  }

  private collectLiterals(): Literal[] {
    const out: Literal[] = [];
    for (const l of this.info.literals ?? []) {
      out.push({
        subject: l.subject ?? '',
        value: BigInt(l.value),
        wildcard: BigInt(l.wildcardMask ?? '0'),
        width: l.width,
        line: l.line,
      });
    }
    const ranged = (subject: string, label: string, line: number) => {
      const r = /^\[([\s\S]*)\]$/.exec(label.trim());
      const colon = r ? topLevelColon(r[1]) : -1;
      if (!r || colon < 0) {
        const v = this.scope.evaluate(label);
        if (v && v.value >= 0n) out.push({ subject, value: v.value, wildcard: 0n, line });
        return;
      }
      const a = this.scope.evaluate(r[1].slice(0, colon))?.value;
      const b = this.scope.evaluate(r[1].slice(colon + 1))?.value;
      if (a === undefined || b === undefined || a < 0n || b < a) return;
      const all = b - a < BigInt(MAX_RANGE_VALUES);
      for (let v = a; v <= b; v = all ? v + 1n : v + (b - a || 1n)) out.push({ subject, value: v, wildcard: 0n, line });
    };
    for (const c of this.info.cases ?? []) {
      if (!c.inside) continue;
      for (const item of c.items)
        item.values.forEach((v, i) => {
          if (v === null) ranged(c.subject, item.labels[i], item.line);
        });
    }
    for (const e of this.raw.exprs) {
      if (!e.text.includes('inside')) continue;
      for (const m of e.text.matchAll(
        /([A-Za-z_][\w$]*(?:\s*\[[^\]]*\])*|\{[^{}]*\})\s+inside\s*\{((?:[^{}]|\{[^{}]*\})*)\}/g,
      ))
        for (const label of splitTopLevel(m[2])) ranged(m[1].trim(), label, e.line);
    }
    return out;
  }
}

// ---- the design --------------------------------------------------------------------------------------

interface Context {
  id: number;
  model: ModuleModel;
  parent?: Context;
  instance?: RawInstance;
}

/** Top input bits behind bits of a traced expression (its `local` is set only for joint fields). */
type Piece = TracedSlice;

class Tracer {
  private steps = 0;
  private readonly memo = new Map<string, Piece[]>();
  private readonly active = new Set<string>();
  private readonly children = new Map<string, Context | null>();
  contexts = 1;

  constructor(private readonly maxStages: number) {}

  child(ctx: Context, instance: number, models: (name: string) => ModuleModel | undefined): Context | undefined {
    const key = `${ctx.id}/${instance}`;
    let c = this.children.get(key);
    if (c === undefined) {
      const inst = ctx.model.raw.instances[instance];
      const model = inst ? models(inst.module) : undefined;
      let depth = 0;
      for (let p: Context | undefined = ctx; p; p = p.parent) depth++;
      c =
        model && inst && this.contexts < MAX_CONTEXTS && depth < 32
          ? { id: this.contexts++, model, parent: ctx, instance: inst }
          : null;
      this.children.set(key, c);
    }
    return c ?? undefined;
  }

  /** The top input bits behind bits [lo, lo+w) of an expression's structure in a context. */
  through(ctx: Context, bits: Bits, lo: number, w: number, stages: number, hops: number, models: Models): Piece[] {
    const leaves: Leaf[] = [];
    mapBits(bits, lo, w, 0, leaves);
    const out: Piece[] = [];
    for (const l of leaves)
      for (const p of this.signal(ctx, l.name, l.lo, l.width, stages, hops, models))
        out.push({ ...p, offset: p.offset + l.offset });
    return leaves.length > 1 ? dedupe(out) : out;
  }

  private signal(ctx: Context, name: string, lo: number, w: number, stages: number, hops: number, models: Models) {
    if (++this.steps > MAX_TRACE_STEPS || hops > MAX_HOPS) return [];
    const key = `${ctx.id}|${name}|${lo}|${w}|${stages}`;
    const hit = this.memo.get(key);
    if (hit) return hit;
    if (this.active.has(key)) return []; // a register that holds itself, or a loop through logic
    this.active.add(key);
    const out: Piece[] = [];
    const m = ctx.model;
    const port = m.ports.get(name);
    if (port?.direction === 'input') {
      if (!ctx.parent) out.push({ input: name, lsb: lo, width: w, offset: 0, stages });
      else {
        const expr = connection(ctx.instance!, m.info, name);
        if (expr) out.push(...this.through(ctx.parent, ctx.parent.model.bits(expr), lo, w, stages, hops + 1, models));
      }
    } else {
      for (const d of m.drivers(name)) {
        const s = Math.max(lo, d.lo);
        const e = Math.min(lo + w, d.lo + d.width);
        const st = stages + (d.clocked ? 1 : 0);
        if (s >= e || st > this.maxStages) continue;
        for (const p of this.through(ctx, d.rhs, d.rhsLo + (s - d.lo), e - s, st, hops + 1, models))
          out.push({ ...p, offset: p.offset + (s - lo) });
      }
      for (const c of m.childDrivers(name)) {
        const s = Math.max(lo, c.lo);
        const e = Math.min(lo + w, c.lo + c.width);
        const child = s < e ? this.child(ctx, c.instance, models) : undefined;
        if (!child) continue;
        for (const p of this.signal(child, c.port, c.portLo + (s - c.lo), e - s, stages, hops + 1, models))
          out.push({ ...p, offset: p.offset + (s - lo) });
      }
    }
    this.active.delete(key);
    const distinct = dedupe(out);
    this.memo.set(key, distinct);
    return distinct;
  }
}

type Models = (name: string) => ModuleModel | undefined;

/** Each piece with the local signal bits it was traced from, for joint fields (see TracedSlice.local). */
function localized(bits: Bits, width: number, pieces: Piece[]): TracedSlice[] {
  const leaves: Leaf[] = [];
  mapBits(bits, 0, width, 0, leaves);
  return pieces.map((p) => {
    const leaf = leaves.find((l) => p.offset >= l.offset && p.offset < l.offset + l.width);
    return leaf ? { ...p, local: { name: leaf.name, shift: p.lsb - (leaf.lo + p.offset - leaf.offset) } } : p;
  });
}

/** The same bits reached along several paths (muxes, both arms of a `?:`) count once, at the fewest stages. */
function dedupe(pieces: Piece[]): Piece[] {
  if (pieces.length < 2) return pieces;
  const seen = new Map<string, Piece>();
  for (const p of pieces) {
    const key = `${p.input}|${p.lsb}|${p.width}|${p.offset}`;
    const had = seen.get(key);
    if (!had || p.stages < had.stages) seen.set(key, p);
  }
  return seen.size === pieces.length ? pieces : [...seen.values()];
}

function sourceFiles(sources: ReadonlyMap<string, string>): SourceFile[] {
  return [...sources].map(([name, content]) => ({ name, content }));
}

function buildModels(
  analysis: DesignAnalysis,
  sources: ReadonlyMap<string, string>,
  top: string,
  opts: DictionaryOptions,
) {
  const { raws, design } = designSources(sourceFiles(sources), {
    top,
    parameters: opts.parameters,
    defines: opts.defines,
  });
  const rawByName = new Map<string, RawModule>();
  for (const r of raws) for (const m of r.modules) if (!rawByName.has(m.name)) rawByName.set(m.name, m);
  const models = new Map<string, ModuleModel | null>();
  const get: Models = (name) => {
    let m = models.get(name);
    if (m === undefined) {
      const info = analysis.modules.find((x) => x.name === name);
      const raw = rawByName.get(name);
      m = info && raw ? new ModuleModel(info, raw, moduleScope(raw, design), get) : null;
      models.set(name, m);
    }
    return m ?? undefined;
  };
  return get;
}

/**
 * Slices of the top's inputs with the values the design compares them with: case items (casez don't-cares as
 * a mask, concatenated subjects split into their parts), `==`/`!=`/`<`/… constants, `inside` sets, with named
 * constants resolved, each traced back through assigns, combinational logic, up to `maxStages` register stages
 * (a register loaded under a condition counts) and the instance hierarchy. `sources` maps each file the
 * analysis was made from to its text. Best effort and bounded: what cannot be traced is left out.
 */
export function inputDictionary(
  analysis: DesignAnalysis,
  top: string,
  sources: ReadonlyMap<string, string>,
  opts: DictionaryOptions = {},
): InputField[] {
  const models = buildModels(analysis, sources, top, opts);
  const root = models(top);
  if (!root) return [];
  const minWidth = opts.minWidth ?? 2;
  const tracer = new Tracer(opts.maxStages ?? 2);
  const fields = new Map<string, InputField>();
  const valueSets = new Map<InputField, Set<bigint>>();
  const topInputs = new Map(root.info.ports.filter((p) => p.direction === 'input').map((p) => [p.name, p]));

  const visit = (ctx: Context) => {
    const bySubject = new Map<string, Literal[]>();
    for (const l of ctx.model.literals()) {
      if (!l.subject) continue;
      const list = bySubject.get(l.subject) ?? [];
      list.push(l);
      bySubject.set(l.subject, list);
    }
    const traced = new Map<string, { pieces: TracedSlice[]; width: number }>();
    for (const [subject, lits] of bySubject) {
      const bits = ctx.model.bits(subject);
      const w = widthOf(bits) ?? lits.find((l) => l.width !== undefined)?.width;
      if (w === undefined || w < 1) continue;
      const pieces = tracer.through(ctx, bits, 0, w, 0, 0, models);
      traced.set(subject, { pieces: localized(bits, w, pieces).filter((p) => topInputs.has(p.input)), width: w });
      const fieldPieces = pieces.filter((p) => p.width >= minWidth && topInputs.has(p.input));
      for (const l of lits) {
        if (l.value > mask(w)) continue; // never equal; as a bound it says nothing about these bits
        for (const { care, value, ...p } of sliceValues(fieldPieces, l.value, l.wildcard)) {
          const key = `${p.input}|${p.lsb}|${p.width}|${care === mask(p.width) ? '' : care}`;
          const f = fieldAt(key, { ...p, care, file: ctx.model.info.file, line: l.line, subject });
          if (f) addValue(f, value);
        }
      }
    }
    addJointFields(ctx, bySubject, traced);
    ctx.model.raw.instances.forEach((_, i) => {
      const c = tracer.child(ctx, i, models);
      if (c) visit(c);
    });
  };

  const addJointFields = (
    ctx: Context,
    bySubject: Map<string, Literal[]>,
    traced: Map<string, { pieces: TracedSlice[]; width: number }>,
  ) => {
    const spans = itemSpans(ctx.model.info.cases ?? []);
    const place = (subject: string, value: bigint, wildcard: bigint): SliceValue[][] => {
      const t = traced.get(subject);
      return t && value <= mask(t.width) ? alignments(sliceValues(t.pieces, value, wildcard)) : [];
    };
    for (const [subject, lits] of bySubject) {
      if (!traced.get(subject)?.pieces.length) continue;
      for (const l of lits) {
        const { words, outer } = jointWords(place(subject, l.value, l.wildcard), l.line, subject, spans, place);
        for (const word of words) {
          const key = `${word.input}|${word.lsb}|${word.width}|${word.care}|joint`;
          const f = fieldAt(key, { ...word, file: ctx.model.info.file, line: l.line, subject }, { outer });
          if (f) addValue(f, word.value);
        }
      }
    }
  };
  /** The field of these bits (made on first use, up to MAX_FIELDS). */
  const fieldAt = (
    key: string,
    at: {
      input: string;
      lsb: number;
      width: number;
      care: bigint;
      stages: number;
      file: string;
      line: number;
      subject: string;
    },
    joint?: InputField['joint'],
  ): InputField | undefined => {
    let f = fields.get(key);
    if (!f) {
      if (fields.size >= MAX_FIELDS) return undefined;
      f = {
        input: at.input,
        lsb: at.lsb,
        width: at.width,
        values: [],
        source: { file: at.file, line: at.line },
        subject: at.subject,
        stages: at.stages,
      };
      if (at.care !== mask(at.width)) f.mask = at.care;
      if (joint) f.joint = joint;
      fields.set(key, f);
    }
    return f;
  };
  const addValue = (f: InputField, value: bigint) => {
    let seen = valueSets.get(f);
    if (!seen) valueSets.set(f, (seen = new Set()));
    if (f.values.length < MAX_VALUES_PER_FIELD && !seen.has(value)) {
      seen.add(value);
      f.values.push(value);
    }
  };
  visit({ id: 0, model: root });
  const out = [...fields.values()];
  for (const f of out) f.values.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return out.sort((a, b) =>
    a.input !== b.input ? (a.input < b.input ? -1 : 1) : a.lsb !== b.lsb ? a.lsb - b.lsb : a.width - b.width,
  );
}

// ---- handshakes and echoes, from port names ------------------------------------------------------

export interface HandshakePair {
  /** The port that offers: `*_valid`, `*_req`, `*_stb`. */
  request: string;
  /** The port that answers: `*_ready`, `*_gnt`, `*_ack`. */
  response: string;
  /** Which side drives the request: `environment` (an input: the design answers) or `design` (an output). */
  requester: 'environment' | 'design';
  kind: 'valid/ready' | 'req/gnt' | 'req/ack' | 'stb/ack';
  /** For req/gnt (OBI): the port on which the granting side later returns the data (`instr_rvalid_i`). */
  responseValid?: string;
}

const PAIRS: { req: string; resp: string; kind: HandshakePair['kind'] }[] = [
  { req: 'valid', resp: 'ready', kind: 'valid/ready' },
  { req: 'tvalid', resp: 'tready', kind: 'valid/ready' },
  { req: 'vld', resp: 'rdy', kind: 'valid/ready' },
  { req: 'req', resp: 'gnt', kind: 'req/gnt' },
  { req: 'req', resp: 'ack', kind: 'req/ack' },
  { req: 'stb', resp: 'ack', kind: 'stb/ack' },
];

/** `s_axis_tvalid` → { stem: 's_axis_', word: 'tvalid' }; direction marks (`_i`, `_o`, `i_`, `o_`) dropped. */
function handshakeWord(name: string): { stem: string; word: string } | undefined {
  const bare = name.replace(/(?:_(?:i|o|in|out|ni|no|n))$/i, '').replace(/^(?:i|o|in|out)_/i, '');
  const m = /^(.*?)(tvalid|tready|valid|ready|vld|rdy|req|gnt|ack|stb)$/i.exec(bare);
  return m ? { stem: m[1].toLowerCase(), word: m[2].toLowerCase() } : undefined;
}

/**
 * Input/output pairs of the top that form a request/response handshake (`*_valid`/`*_ready`, `*_req`/`*_gnt`,
 * `*_req`/`*_ack`, `*_stb`/`*_ack`), one input and one output with the same stem; active-low names are left out.
 */
export function handshakePairs(analysis: DesignAnalysis, top: string): HandshakePair[] {
  const m = analysis.modules.find((x) => x.name === top);
  if (!m) return [];
  const ports = m.ports
    .filter((p) => (p.direction === 'input' || p.direction === 'output') && p.width === 1 && !/_n[io]?$/i.test(p.name))
    .flatMap((p) => {
      const w = handshakeWord(p.name);
      return w ? [{ port: p, ...w }] : [];
    });
  const out: HandshakePair[] = [];
  const used = new Set<string>();
  for (const pair of PAIRS) {
    for (const r of ports) {
      if (r.word !== pair.req || used.has(r.port.name)) continue;
      const s = ports.find(
        (x) =>
          x.word === pair.resp && x.stem === r.stem && x.port.direction !== r.port.direction && !used.has(x.port.name),
      );
      if (!s) continue;
      used.add(r.port.name).add(s.port.name);
      const hs: HandshakePair = {
        request: r.port.name,
        response: s.port.name,
        requester: r.port.direction === 'input' ? 'environment' : 'design',
        kind: pair.kind,
      };
      const rvalid =
        pair.kind === 'req/gnt'
          ? ports.find((x) => x.word === 'valid' && x.stem === `${r.stem}r` && x.port.direction === s.port.direction)
          : undefined;
      if (rvalid) hs.responseValid = rvalid.port.name;
      out.push(hs);
    }
  }
  return out;
}

export interface EchoInput {
  /** The input that reads the line back (`scl_i`). */
  input: string;
  /** The output that drives it (`scl_o`). */
  output: string;
  /** The output enable (`scl_t`, `sda_oe`, `scl_padoen_o`), when there is one. */
  enable?: string;
  /** True when the enable drives the line at 0 (a tristate `_t`, `_oen`, `_oe_n`): released while 1. */
  enableActiveLow?: boolean;
  /** True when the output pulls the line low at 1 (`*_pull`, `*_drive_low`, `*_o_n`)… */
  activeLowOutput?: boolean;
}

/** Lines where the environment only pulls up: an output pair without an enable still means open drain there. */
const OPEN_DRAIN_LINE = /(?:^|_)(?:scl|sda|mdio|onewire|ow|dq)(?:_pad)?$/i;

/**
 * Inputs that should read back what the design drives, as on an open-drain bus: `scl_i` with `scl_o` and
 * `scl_t` (verilog-i2c), `sda_pad_i` with `sda_pad_o` and `sda_padoen_o`, `*_i`/`*_o`/`*_oe` triples. An
 * `_i`/`_o` pair without an enable counts only for names of open-drain lines (scl, sda, mdio, 1-wire):
 * elsewhere it is a datapath.
 */
export function echoInputs(analysis: DesignAnalysis, top: string): EchoInput[] {
  const m = analysis.modules.find((x) => x.name === top);
  if (!m) return [];
  const outputs = new Map(m.ports.filter((p) => p.direction === 'output').map((p) => [p.name, p]));
  const out: EchoInput[] = [];
  for (const p of m.ports) {
    if (p.direction !== 'input') continue;
    const base = /^(.+)_(?:i|in)$/.exec(p.name)?.[1];
    if (!base) continue;
    const output = [`${base}_o`, `${base}_out`, `${base}o`].find((n) => outputs.get(n)?.width === p.width);
    const pull = [`${base}_pull_o`, `${base}_drive_low_o`, `${base}_o_n`, `${base}_pull`].find(
      (n) => outputs.get(n)?.width === p.width,
    );
    const enables: [string, boolean][] = [
      [`${base}_t`, true],
      [`${base}_t_o`, true],
      [`${base}_oen`, true],
      [`${base}_oen_o`, true],
      [`${base}oen_o`, true],
      [`${base}_oe_n`, true],
      [`${base}_oe_no`, true],
      [`${base}_oe`, false],
      [`${base}_oe_o`, false],
      [`${base}oe_o`, false],
      [`${base}_en_o`, false],
    ];
    const en = enables.find(([n]) => {
      const e = outputs.get(n);
      return e !== undefined && (e.width === 1 || e.width === p.width);
    });
    const driver = output ?? pull;
    if (!driver || (!en && !OPEN_DRAIN_LINE.test(base))) continue;
    const echo: EchoInput = { input: p.name, output: driver };
    if (en) {
      echo.enable = en[0];
      echo.enableActiveLow = en[1];
    }
    if (!output && pull) echo.activeLowOutput = true;
    out.push(echo);
  }
  return out;
}

/**
 * What the input reads when the design's drive meets a pull-up (a wired AND): each bit is the output's where the
 * design drives it, 1 where it releases the line. A 1-bit enable of a wider output enables every bit.
 */
export function echoedValue(echo: EchoInput, width: number, output: bigint, enable?: bigint, enableWidth = 1): bigint {
  const all = mask(width);
  const level = echo.activeLowOutput ? ~output & all : output & all;
  if (echo.enable === undefined || enable === undefined) return level;
  const en = enableWidth === 1 ? (enable & 1n ? all : 0n) : enable & all;
  const driving = echo.enableActiveLow ? ~en & all : en;
  return (level & driving) | (~driving & all);
}
