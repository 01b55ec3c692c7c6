/**
 * The top module's port widths as Verilator elaborated them (`--xml-only`): with the design's macros,
 * include files, packages and parameter overrides applied, which text analysis alone cannot always see.
 */

interface DType {
  kind: string;
  name?: string;
  left?: number | undefined;
  right?: number | undefined;
  sub?: string;
  members: string[];
  range: number[];
}

const BASIC_WIDTH: Record<string, number> = {
  bit: 1,
  logic: 1,
  reg: 1,
  wire: 1,
  byte: 8,
  shortint: 16,
  int: 32,
  integer: 32,
  longint: 64,
  time: 64,
};

function attrs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of text.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]] = m[2];
  return out;
}

/** `32'sh7` → 7 (Verilator writes range bounds as sized hex constants). */
function constValue(name: string): number | undefined {
  const m = /^(?:\d+)?&apos;s?([hdbo])([0-9a-fA-F_]+)$/.exec(name) ?? /^(?:\d+)?'s?([hdbo])([0-9a-fA-F_]+)$/.exec(name);
  if (!m) return /^\d+$/.test(name) ? Number(name) : undefined;
  const radix = { h: 16, d: 10, b: 2, o: 8 }[m[1] as 'h' | 'd' | 'b' | 'o'];
  const v = parseInt(m[2].replace(/_/g, ''), radix);
  return Number.isFinite(v) ? v : undefined;
}

function typeTable(xml: string): Map<string, DType> {
  const start = xml.indexOf('<typetable');
  const end = xml.indexOf('</typetable>', start);
  const types = new Map<string, DType>();
  if (start < 0 || end < 0) return types;
  const stack: DType[] = [];
  let inRange = false;
  for (const m of xml.slice(start, end).matchAll(/<(\/?)(\w+)([^>]*?)(\/?)>/g)) {
    const [, closing, tag, rest, selfClosing] = m;
    if (closing) {
      if (tag === 'range') inRange = false;
      else if (tag.endsWith('dtype')) stack.pop();
      continue;
    }
    const a = attrs(rest);
    if (tag === 'range') inRange = !selfClosing;
    else if (tag === 'const' && inRange && stack.length) {
      const v = constValue(a.name ?? '');
      if (v !== undefined) stack[stack.length - 1].range.push(v);
    } else if (tag.endsWith('dtype') && a.id) {
      const t: DType = {
        kind: tag,
        name: a.name,
        left: a.left !== undefined ? Number(a.left) : undefined,
        right: a.right !== undefined ? Number(a.right) : undefined,
        sub: a.sub_dtype_id,
        members: [],
        range: [],
      };
      types.set(a.id, t);
      if (tag === 'memberdtype' && stack.length) stack[stack.length - 1].members.push(a.id);
      if (!selfClosing) stack.push(t);
    }
  }
  return types;
}

function widthOf(types: Map<string, DType>, id: string | undefined, seen = new Set<string>()): number | undefined {
  if (id === undefined || seen.has(id)) return undefined;
  seen.add(id);
  const t = types.get(id);
  if (!t) return undefined;
  const span = (a: number, b: number) => Math.abs(a - b) + 1;
  switch (t.kind) {
    case 'basicdtype':
      return t.left !== undefined && t.right !== undefined ? span(t.left, t.right) : BASIC_WIDTH[t.name ?? ''];
    case 'packarraydtype': {
      const sub = widthOf(types, t.sub, seen);
      return sub !== undefined && t.range.length === 2 ? sub * span(t.range[0], t.range[1]) : undefined;
    }
    case 'structdtype':
    case 'uniondtype': {
      const ws = t.members.map((m) => widthOf(types, m, new Set(seen)));
      if (!ws.length || ws.some((w) => w === undefined)) return undefined;
      const nums = ws as number[];
      return t.kind === 'structdtype' ? nums.reduce((s, w) => s + w, 0) : Math.max(...nums);
    }
    case 'refdtype':
    case 'enumdtype':
    case 'memberdtype':
      return widthOf(types, t.sub, seen);
    default:
      return undefined;
  }
}

/** Port name → width in bits of the XML's top module; ports whose type is not a packed one are left out. */
export function elaboratedPortWidths(xml: string): Map<string, number> {
  const out = new Map<string, number>();
  const top = /<module\b[^>]*\btopModule="1"[^>]*>([\s\S]*?)<\/module>/.exec(xml);
  if (!top) return out;
  const types = typeTable(xml);
  for (const m of top[1].matchAll(/<var\b([^>]*)>/g)) {
    const a = attrs(m[1]);
    if (!a.dir || !a.name) continue;
    const w = widthOf(types, a.dtype_id);
    if (w !== undefined) out.set(a.name, w);
  }
  return out;
}
