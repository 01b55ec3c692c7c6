/**
 * The top module's port widths from Verilator's `--json-only` tree: newer Verilators (5.050 here) dropped
 * `--xml-only`, which elaboratedPorts.ts reads. Nodes name each other by `addr`; data types live in the
 * netlist's type table and are reached through `dtypep` / `refDTypep`.
 */

interface JsonNode {
  type?: string;
  addr?: string;
  [key: string]: unknown;
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
const PORT_DIRECTIONS = new Set(['INPUT', 'OUTPUT', 'INOUT']);
/** Nesting bound of the walk: Verilator's trees are far shallower; a damaged file must not exhaust the stack. */
const MAX_DEPTH = 400;

function isNode(v: unknown): v is JsonNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(node: JsonNode, key: string): string | undefined {
  const v = node[key];
  return typeof v === 'string' ? v : undefined;
}

/** Every node with an address, and the modules, in one walk. */
function index(root: unknown): { byAddr: Map<string, JsonNode>; modules: JsonNode[] } {
  const byAddr = new Map<string, JsonNode>();
  const modules: JsonNode[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    if (Array.isArray(v)) {
      for (const item of v) visit(item, depth + 1);
      return;
    }
    if (!isNode(v)) return;
    if (typeof v.addr === 'string') byAddr.set(v.addr, v);
    if (v.type === 'MODULE') modules.push(v);
    for (const child of Object.values(v)) if (typeof child === 'object') visit(child, depth + 1);
  };
  visit(root, 0);
  return { byAddr, modules };
}

/** `7:0` or `[7:0]` → 8. */
function rangeWidth(text: string | undefined): number | undefined {
  const m = /^\[?\s*(-?\d+)\s*:\s*(-?\d+)\s*\]?$/.exec(text ?? '');
  return m ? Math.abs(Number(m[1]) - Number(m[2])) + 1 : undefined;
}

function widthOf(
  byAddr: Map<string, JsonNode>,
  addr: string | undefined,
  seen = new Set<string>(),
): number | undefined {
  if (addr === undefined || seen.has(addr)) return undefined;
  seen.add(addr);
  const t = byAddr.get(addr);
  if (!t) return undefined;
  const ref = (): number | undefined =>
    widthOf(byAddr, str(t, 'refDTypep') ?? (str(t, 'dtypep') !== addr ? str(t, 'dtypep') : undefined), seen);
  switch (t.type) {
    case 'BASICDTYPE':
      return rangeWidth(str(t, 'range')) ?? BASIC_WIDTH[str(t, 'keyword') ?? ''];
    case 'PACKARRAYDTYPE': {
      const sub = ref();
      const span = rangeWidth(str(t, 'declRange'));
      return sub !== undefined && span !== undefined ? sub * span : undefined;
    }
    case 'STRUCTDTYPE':
    case 'UNIONDTYPE': {
      const members = Array.isArray(t.membersp) ? t.membersp.filter(isNode) : [];
      const ws = members.map((m) => (typeof m.addr === 'string' ? widthOf(byAddr, m.addr, new Set(seen)) : undefined));
      if (!ws.length || ws.some((w) => w === undefined)) return undefined;
      const nums = ws as number[];
      return t.type === 'STRUCTDTYPE' ? nums.reduce((s, w) => s + w, 0) : Math.max(...nums);
    }
    case 'REFDTYPE':
    case 'ENUMDTYPE':
    case 'MEMBERDTYPE':
      return ref();
    default:
      return undefined;
  }
}

/** Port name → width in bits of the top module (level 1); ports whose type is not a packed one are left out. */
export function elaboratedPortWidthsFromJson(text: string): Map<string, number> {
  const out = new Map<string, number>();
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return out;
  }
  const { byAddr, modules } = index(root);
  const top = modules.find((m) => m.level === 1);
  const stmts = top && Array.isArray(top.stmtsp) ? top.stmtsp.filter(isNode) : [];
  for (const v of stmts) {
    const name = str(v, 'name');
    if (v.type !== 'VAR' || !name || !PORT_DIRECTIONS.has(str(v, 'direction') ?? '')) continue;
    const w = widthOf(byAddr, str(v, 'dtypep'));
    if (w !== undefined) out.set(name, w);
  }
  return out;
}
