/** Turns one module's raw extraction into the protocol's ModuleInfo, with names resolved in its scope. */
import type { CaseInfo, ModuleInfo, ParamInfo, PortInfo } from '../protocol';
import { toNumber } from './const-eval';
import { detectClockReset, detectFsms } from './behaviour';
import { buildCases, harvestLiterals, type SignalTable } from './literals';
import { caseItemFor } from './queries';
import { HeldValues } from './reachable';
import type { RawDataType, RawDecl, RawModule, RawPort } from './raw';
import { Scope, type Design, type TypeInfo } from './scope';

const SUBJECT = /^[A-Za-z_][\w$]*$/;

/**
 * Sets `subjectValues` on the cases with a default whose subject is a variable analysis can enumerate and
 * whose items match every one of those values. Cases on the same variable are proven together: the writes in
 * their default arms are left out of its values, so the group shrinks until every member covers the values
 * computed without its members' defaults (see HeldValues.valuesOf).
 */
function listHeldValues(raw: RawModule, cases: CaseInfo[], held: HeldValues): void {
  const groups = new Map<string, number[]>();
  for (const [k, c] of cases.entries()) {
    const subject = c.subject.replace(/^\((.*)\)$/, '$1').trim();
    if (c.defaultLine === undefined || c.inside || !SUBJECT.test(subject)) continue;
    groups.set(subject, [...(groups.get(subject) ?? []), k]);
  }
  for (const [subject, members] of groups) {
    let group = members;
    while (group.length) {
      const values = held.valuesOf(
        subject,
        group.map((k) => raw.cases[k]),
      );
      if (!values) break;
      const covering = group.filter((k) => values.every((v) => caseItemFor(cases[k], v) !== undefined));
      if (covering.length === group.length) {
        for (const k of group) cases[k].subjectValues = values.map(String);
        break;
      }
      group = covering;
    }
  }
}

/** A type says nothing of its own when it has no keyword, typedef, enum/struct body or packed range. */
function isBare(t: RawDataType | undefined): boolean {
  return !t || (!t.keyword && !t.userType && !t.enumDef && !t.structDef && t.packed.length === 0);
}

function typeName(t: RawDataType | undefined): string {
  if (!t) return 'wire';
  if (t.keyword) return t.keyword;
  if (t.userType) return t.userType;
  if (t.enumDef) return 'enum';
  if (t.structDef) return t.structDef.union ? 'union' : 'struct';
  return t.netType ?? 'wire';
}

function params(raw: RawModule, scope: Scope): ParamInfo[] {
  return raw.params.map((p) => {
    const info: ParamInfo = { name: p.name, default: p.default, local: p.local };
    if (p.line !== undefined) info.line = p.line;
    if (!p.isType) {
      const v = toNumber(scope.value(p.name));
      if (v !== undefined) info.value = v;
    }
    return info;
  });
}

function ports(
  raw: RawModule,
  scope: Scope,
  decls: Map<string, RawDecl>,
): { list: PortInfo[]; types: Map<string, TypeInfo> } {
  const byName = new Map<string, RawPort>();
  for (const p of raw.ports) if (!byName.has(p.name)) byName.set(p.name, p);
  // Non-ANSI headers list the names; the body declares them. ANSI declarations are their own order.
  const order = raw.ansi
    ? raw.ports.map((p) => p.name)
    : raw.portOrder.length
      ? raw.portOrder
      : raw.ports.map((p) => p.name);
  const out: PortInfo[] = [];
  const types = new Map<string, TypeInfo>();
  for (const name of order) {
    const p = byName.get(name) ?? { name, direction: 'inout' as const, unpacked: [], range: raw.range };
    const decl = decls.get(name);
    // `output q; reg [7:0] q;` — the variable declaration carries the type.
    let type = p.type;
    if (decl && isBare(type)) type = { ...decl.type, signing: type?.signing ?? decl.type.signing };
    else if (decl && type && !type.keyword && !type.userType) {
      // `output [W:0] q; reg [W:0] q;` — the range is the port's, the kind of variable the declaration's
      type = {
        ...type,
        keyword: decl.type.keyword,
        userType: decl.type.userType,
        signing: type.signing ?? decl.type.signing,
      };
    }
    let info: TypeInfo;
    if (p.interfaceType) info = { width: undefined, signed: false };
    else info = scope.resolveType(type ?? { text: '', packed: [] });
    const port: PortInfo = {
      name,
      direction: p.interfaceType ? 'inout' : (p.direction ?? 'inout'),
      width: info.width ?? 0,
      signed: info.signed,
      type: p.interfaceType ?? typeName(type),
      range: p.range,
    };
    if (type?.packed.length) port.rangeText = type.packed.join('');
    const unpacked = p.unpacked.length ? p.unpacked : (decl?.unpacked ?? []);
    if (unpacked.length) {
      port.unpacked = unpacked.join('');
      const dims = unpacked.map((d) => scope.dimBounds(d));
      if (dims.every((d) => d !== undefined)) port.dimensions = dims;
    }
    if (info.enumMembers) port.enumMembers = info.enumMembers;
    out.push(port);
    types.set(name, info);
  }
  return { list: out, types };
}

function signalTable(
  portList: PortInfo[],
  portTypes: Map<string, TypeInfo>,
  decls: Map<string, RawDecl>,
  scope: Scope,
): SignalTable {
  const types = new Map<string, TypeInfo>(portTypes);
  const portMap = new Map(portList.map((p) => [p.name, p]));
  const resolved = (name: string): TypeInfo | undefined => {
    let t = types.get(name);
    if (!t) {
      // ports were resolved with them; the rest are variables and nets
      const d = decls.get(name);
      if (d) t = scope.resolveType(d.type);
      if (t) types.set(name, t);
    }
    return t;
  };
  // `req.op`: walk the struct's fields
  const path = (name: string): TypeInfo | undefined => {
    const [head, ...rest] = name.split('.');
    let t = resolved(head);
    for (const f of rest) t = t?.fields?.[f];
    return t;
  };
  return {
    width: (name) => path(name)?.width,
    enumMembers: (name) => path(name)?.enumMembers,
    isArray: (name) => Boolean(decls.get(name)?.unpacked.length || portMap.get(name)?.unpacked),
  };
}

/** The names a module sees: its own declarations, its imports, the packages and the compilation unit. */
export function moduleScope(raw: RawModule, design: Design): Scope {
  const scope = new Scope(design, design.unit);
  scope.add(raw);
  return scope;
}

export function resolveModule(raw: RawModule, design: Design): ModuleInfo {
  const scope = moduleScope(raw, design);
  const decls = new Map<string, RawDecl>();
  for (const d of raw.decls) if (!decls.has(d.name)) decls.set(d.name, d);
  const { list: portList, types: portTypes } = ports(raw, scope, decls);
  const signals = signalTable(portList, portTypes, decls, scope);
  const { clock, reset, clocks, resets } = detectClockReset(raw, portList, scope);
  const cases = buildCases(raw, scope, signals);
  listHeldValues(raw, cases, new HeldValues({ raw, scope, signals, ports: portList }));
  return {
    name: raw.name,
    file: raw.file,
    line: raw.range.startLine,
    params: params(raw, scope),
    ports: portList,
    instances: raw.instances.map((i) => ({
      module: i.module,
      name: i.name,
      connections: i.connections,
      range: i.range,
    })),
    clock,
    reset,
    clocks,
    resets,
    fsms: detectFsms(raw, portList, scope, (name) => signals.enumMembers(name)),
    sites: raw.sites,
    range: raw.range,
    cases,
    literals: harvestLiterals(raw, cases, scope, signals),
  };
}
