/**
 * Name resolution for constants and types: a module sees its own parameters, typedefs and enum members,
 * the packages it imports, `pkg::name` anywhere, and the compilation unit. Values are computed on demand,
 * so declaration order across files does not matter.
 */
import { evaluate, type ConstScope, type ConstValue } from './const-eval';
import { callConstFunction } from './const-function';
import type { RawDataType, RawEnum, RawParam, RawScope } from './raw';
import { topLevelColon } from './topLevel';

export interface TypeInfo {
  /** Packed width in bits; undefined when it could not be resolved. */
  width?: number | undefined;
  signed: boolean;
  /** Enum members, when the type is an enum. */
  enumMembers?: string[];
  /** Members of a struct or union type. */
  fields?: Record<string, TypeInfo>;
}

const ATOM_WIDTHS: Record<string, number> = {
  byte: 8,
  shortint: 16,
  int: 32,
  longint: 64,
  integer: 32,
  time: 64,
  real: 64,
  realtime: 64,
  shortreal: 32,
};
const SIGNED_BY_DEFAULT = new Set(['byte', 'shortint', 'int', 'longint', 'integer']);

/** Packages and the compilation unit of one design, shared by every module's scope. */
export class Design {
  readonly packages = new Map<string, Scope>();
  readonly unit: Scope;
  constructor(readonly macros: Record<string, string>) {
    this.unit = new Scope(this, undefined);
  }
}

export class Scope implements ConstScope {
  private readonly params = new Map<string, RawParam>();
  private readonly typedefs = new Map<string, RawDataType>();
  private readonly enumMembers = new Map<string, { def: RawEnum; index: number }>();
  private readonly consts = new Map<string, ConstValue | null>();
  private readonly types = new Map<string, TypeInfo>();
  private readonly busy = new Set<string>();
  private readonly evaluated = new Map<string, ConstValue | null>();
  private readonly looked = new Map<string, ConstValue | null>();
  private readonly imports: string[] = [];
  private readonly functions = new Map<string, string>();
  /** Calls being worked out: a function that calls itself with the same arguments gives no value. */
  private readonly calling = new Set<string>();

  constructor(
    private readonly design: Design,
    private readonly parent: Scope | undefined,
  ) {}

  /** Adds a module's, package's or the unit's declarations (typedefs and decls may carry enum members). */
  add(raw: RawScope): void {
    for (const p of raw.params) if (!this.params.has(p.name)) this.params.set(p.name, p);
    for (const t of raw.typedefs) {
      this.typedefs.set(t.name, t.type);
      this.addEnum(t.type);
    }
    for (const d of raw.decls) this.addEnum(d.type);
    this.imports.push(...raw.imports);
    for (const f of raw.functions ?? []) if (!this.functions.has(f.name)) this.functions.set(f.name, f.text);
  }

  /** A constant function's value: `pkg::f(…)`, one of this scope's, an imported one, or the parent's. */
  call(name: string, args: ConstValue[]): ConstValue | undefined {
    const scoped = /^([\w$]+)::([\w$]+)$/.exec(name);
    if (scoped) return this.design.packages.get(scoped[1])?.call(scoped[2], args);
    const text = this.functions.get(name);
    if (text !== undefined) {
      const key = `${name}(${args.map((a) => a.value).join(',')})`;
      if (this.calling.has(key) || this.calling.size > 32) return undefined;
      this.calling.add(key);
      try {
        return callConstFunction(text, args, this);
      } finally {
        this.calling.delete(key);
      }
    }
    for (const imp of this.imports) {
      const [pkg, item] = imp.split('::');
      if (item !== undefined && item !== name) continue;
      const v = this.design.packages.get(pkg)?.call(name, args);
      if (v) return v;
    }
    return this.parent?.call(name, args);
  }

  addEnum(type: RawDataType | undefined): void {
    type?.enumDef?.members.forEach((m, index) => {
      if (m.name && !this.enumMembers.has(m.name)) this.enumMembers.set(m.name, { def: type.enumDef!, index });
    });
  }

  // ---- constants ---------------------------------------------------------------------------------

  value(name: string): ConstValue | undefined {
    const hit = this.looked.get(name);
    if (hit !== undefined) return hit ?? undefined;
    let v: ConstValue | undefined;
    const scoped = name.includes('::') ? /^([\w$]+)::([\w$]+)$/.exec(name) : null;
    if (scoped) v = this.design.packages.get(scoped[1])?.value(scoped[2]);
    else v = this.localValue(name) ?? this.importedValue(name) ?? this.parent?.value(name);
    // Signals are looked up as often as constants; remember both, but not midway through a definition.
    if (this.busy.size === 0) this.looked.set(name, v ?? null);
    return v;
  }

  /** A constant expression's value in this scope (memoized: the same ranges recur across a module). */
  evaluate(text: string): ConstValue | undefined {
    const hit = this.evaluated.get(text);
    if (hit !== undefined) return hit ?? undefined;
    const v = evaluate(text, this);
    if (this.busy.size === 0) this.evaluated.set(text, v ?? null);
    return v;
  }

  macro(name: string): string | undefined {
    return this.design.macros[name];
  }

  /** A parameter's declaration here (not in imports or the parent). */
  param(name: string): RawParam | undefined {
    return this.params.get(name);
  }

  isConstant(name: string): boolean {
    return this.value(name) !== undefined;
  }

  private localValue(name: string): ConstValue | undefined {
    const cached = this.consts.get(name);
    if (cached !== undefined) return cached ?? undefined;
    const param = this.params.get(name);
    const member = this.enumMembers.get(name);
    if (!param && !member) return undefined;
    if (this.busy.has(name)) return undefined; // a parameter defined in terms of itself
    this.busy.add(name);
    let v: ConstValue | undefined;
    if (param && !param.isType) {
      v = this.evaluate(param.default);
      const w =
        param.type && (param.type.packed.length || param.type.keyword) ? this.resolveType(param.type).width : undefined;
      if (v && w !== undefined) v = { value: v.value, width: w };
    } else if (member) v = this.enumValue(member.def, member.index);
    this.busy.delete(name);
    this.consts.set(name, v ?? null);
    return v;
  }

  private enumValue(def: RawEnum, index: number): ConstValue | undefined {
    const width = def.base ? this.resolveType(def.base).width : 32;
    // Members without a value count on from the one before.
    let steps = 0n;
    for (let i = index; i >= 0; i--) {
      const text = def.members[i].value;
      if (text !== undefined) {
        const base = this.evaluate(text);
        return base ? { value: base.value + steps, width } : undefined;
      }
      steps++;
    }
    return { value: steps - 1n, width };
  }

  private importedValue(name: string): ConstValue | undefined {
    for (const imp of this.imports) {
      const [pkg, item] = imp.split('::');
      if (item !== undefined && item !== name) continue;
      const v = this.design.packages.get(pkg)?.value(name);
      if (v) return v;
    }
    return undefined;
  }

  // ---- types -------------------------------------------------------------------------------------

  typeWidth(name: string): number | undefined {
    if (ATOM_WIDTHS[name] !== undefined) return ATOM_WIDTHS[name];
    if (name === 'logic' || name === 'bit' || name === 'reg') return 1;
    const t = this.lookupType(name);
    return t?.width;
  }

  /** A typedef (or type parameter) by name, resolved. */
  lookupType(name: string): TypeInfo | undefined {
    const scoped = /^([\w$]+)::([\w$]+)$/.exec(name);
    if (scoped) return this.design.packages.get(scoped[1])?.lookupType(scoped[2]);
    const cached = this.types.get(name);
    if (cached) return cached;
    const def = this.typedefs.get(name);
    if (def) {
      if (this.busy.has(`type ${name}`)) return undefined;
      this.busy.add(`type ${name}`);
      const t = this.resolveType(def);
      this.busy.delete(`type ${name}`);
      this.types.set(name, t);
      return t;
    }
    const p = this.params.get(name);
    if (p?.isType) return this.resolveTypeText(p.default);
    for (const imp of this.imports) {
      const [pkg, item] = imp.split('::');
      if (item !== undefined && item !== name) continue;
      const t = this.design.packages.get(pkg)?.lookupType(name);
      if (t) return t;
    }
    return this.parent?.lookupType(name);
  }

  /** A type parameter's default such as `logic [7:0]`. */
  private resolveTypeText(text: string): TypeInfo {
    const m = /^(\w+)?\s*(signed|unsigned)?\s*((?:\[[^\]]*\]\s*)*)$/.exec(text.trim());
    if (!m) return { signed: false };
    const packed = m[3].match(/\[[^\]]*\]/g) ?? [];
    const keyword =
      m[1] && (ATOM_WIDTHS[m[1]] !== undefined || ['logic', 'bit', 'reg'].includes(m[1])) ? m[1] : undefined;
    return this.resolveType({
      text,
      keyword,
      userType: keyword ? undefined : m[1],
      signing: m[2] as 'signed' | 'unsigned' | undefined,
      packed,
    });
  }

  resolveType(t: RawDataType): TypeInfo {
    let base: TypeInfo;
    if (t.structDef) {
      const s = t.structDef;
      let width: number | undefined = 0;
      const fields: Record<string, TypeInfo> = {};
      for (const m of s.members) {
        const member = this.resolveType(m.type);
        for (const n of m.names) fields[n] = member;
        const w = member.width;
        if (w === undefined || width === undefined) width = undefined;
        else if (s.union) width = Math.max(width, w);
        else width += w * Math.max(m.names.length, 1);
      }
      base = { width, signed: (s.signing ?? t.signing) === 'signed', fields };
    } else if (t.enumDef) {
      const b = t.enumDef.base ? this.resolveType(t.enumDef.base) : { width: 32, signed: true };
      base = { width: b.width, signed: b.signed, enumMembers: t.enumDef.members.map((m) => m.name) };
    } else if (t.keyword && ATOM_WIDTHS[t.keyword] !== undefined) {
      base = { width: ATOM_WIDTHS[t.keyword], signed: SIGNED_BY_DEFAULT.has(t.keyword) };
    } else if (t.keyword === 'string' || t.keyword === 'chandle' || t.keyword === 'event') {
      base = { width: undefined, signed: false }; // not bit vectors
    } else if (t.userType) {
      const u = this.lookupType(t.userType);
      base = u ? { ...u } : { width: undefined, signed: false };
    } else {
      // logic, bit, reg, a net, or implicit: one bit per packed element
      base = { width: 1, signed: false };
    }
    if (t.signing) base.signed = t.signing === 'signed';
    if (t.packed.length && base.width !== undefined) {
      let w: number | undefined = base.width;
      for (const d of t.packed) {
        const n = this.dimSize(d);
        w = n === undefined || w === undefined ? undefined : w * n;
      }
      // A packed array of an enum is no longer an enum.
      return { width: w, signed: base.signed };
    }
    return base;
  }

  /** Bounds of one unpacked dimension: `[0:3]` → 0..3, `[3:0]` → 3..0, `[4]` → 0..3 (a size is `[0:N-1]`). */
  dimBounds(dim: string): { left: number; right: number } | undefined {
    const inner = dim.trim().replace(/^\[/, '').replace(/\]$/, '');
    const colon = topLevelColon(inner);
    const num = (t: string) => {
      const v = this.evaluate(t);
      return v && v.value >= BigInt(Number.MIN_SAFE_INTEGER) && v.value <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(v.value)
        : undefined;
    };
    if (colon < 0) {
      const n = num(inner);
      return n !== undefined && n > 0 ? { left: 0, right: n - 1 } : undefined;
    }
    const left = num(inner.slice(0, colon));
    const right = num(inner.slice(colon + 1));
    return left === undefined || right === undefined ? undefined : { left, right };
  }

  /** Elements in one dimension: `[7:0]` → 8, `[0:3]` → 4, `[4]` → 4. */
  dimSize(dim: string): number | undefined {
    const inner = dim.trim().replace(/^\[/, '').replace(/\]$/, '');
    const colon = topLevelColon(inner);
    if (colon < 0) {
      const n = this.evaluate(inner);
      return n && n.value > 0n ? Number(n.value) : undefined;
    }
    const a = this.evaluate(inner.slice(0, colon));
    const b = this.evaluate(inner.slice(colon + 1));
    if (!a || !b) return undefined;
    const d = a.value > b.value ? a.value - b.value : b.value - a.value;
    return Number(d) + 1;
  }
}
