/**
 * Ports of a top module as Verilator elaborates them (`verilator --xml-only`): the reference the DUT
 * analysis is checked against, by bench/hdl-corpus.ts and by test/hdl.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface XmlPort {
  name: string;
  direction: string;
  width: number;
}

function attrs(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/(\w+)="([^"]*)"/g)) out[m[1]] = m[2];
  return out;
}

/** Widths of Verilator's type table: basic types, typedef references, enums, packed arrays and structs. */
function typeWidths(xml: string): (id: string) => number | undefined {
  const table = xml.slice(xml.indexOf('<typetable'));
  const types = new Map<string, { kind: string; a: Record<string, string>; body: string }>();
  const re = /<(\w+dtype)\b([^>]*?)(\/>|>([\s\S]*?)<\/\1>)/g;
  for (const m of table.matchAll(re)) {
    const a = attrs(m[2]);
    if (a.id) types.set(a.id, { kind: m[1], a, body: m[4] ?? '' });
  }
  const constValue = (name: string) => {
    const m = /^(?:\d+)?'s?h([0-9a-fA-F]+)$/.exec(name.replace(/&apos;/g, "'"));
    return m ? parseInt(m[1], 16) : Number(name);
  };
  const atom: Record<string, number> = { int: 32, integer: 32, byte: 8, shortint: 16, longint: 64, time: 64, real: 64 };
  const width = (id: string, depth = 0): number | undefined => {
    const t = types.get(id);
    if (!t || depth > 20) return undefined;
    switch (t.kind) {
      case 'basicdtype':
        if (t.a.left !== undefined && t.a.right !== undefined)
          return Math.abs(Number(t.a.left) - Number(t.a.right)) + 1;
        return atom[t.a.name] ?? 1;
      case 'refdtype':
      case 'enumdtype':
      case 'unpackarraydtype':
        return width(t.a.sub_dtype_id, depth + 1);
      case 'packarraydtype': {
        const consts = [...t.body.matchAll(/<const\b([^>]*)\/>/g)].map((c) => constValue(attrs(c[1]).name));
        const sub = width(t.a.sub_dtype_id, depth + 1);
        return sub === undefined || consts.length < 2 ? undefined : sub * (Math.abs(consts[0] - consts[1]) + 1);
      }
      case 'structdtype':
      case 'uniondtype': {
        const members = [...t.body.matchAll(/<memberdtype\b([^>]*)\/>/g)].map((c) =>
          width(attrs(c[1]).sub_dtype_id, depth + 1),
        );
        if (members.some((w) => w === undefined)) return undefined;
        const ws = members as number[];
        return t.kind === 'structdtype' ? ws.reduce((s, w) => s + w, 0) : Math.max(...ws);
      }
      default:
        return undefined;
    }
  };
  return (id) => width(id);
}

/** Ports in pin order, or a sentence saying why Verilator gave none. `extra`: design flags (-I, +define+, -G). */
export function verilatorPorts(dir: string, files: string[], top: string, extra: string[] = []): XmlPort[] | string {
  const xmlPath = join(dir, 'out.xml');
  const r = spawnSync(
    'verilator',
    [
      '--xml-only',
      '--xml-output',
      xmlPath,
      '-Wno-fatal',
      '-Wno-lint',
      '-Wno-style',
      '--top-module',
      top,
      '--Mdir',
      join(dir, 'obj'),
      ...extra,
      ...files,
    ],
    { cwd: dir, encoding: 'utf8', timeout: 60_000 },
  );
  if (r.status !== 0) return `verilator failed: ${(r.stderr || r.stdout).split('\n').slice(0, 3).join(' | ')}`;
  const xml = readFileSync(xmlPath, 'utf8');
  const mod = /<module\b[^>]*topModule="1"[^>]*>([\s\S]*?)<\/module>/.exec(xml);
  if (!mod) return 'no top module in the XML';
  const widthOf = typeWidths(xml);
  const ports: (XmlPort & { pin: number })[] = [];
  for (const v of mod[1].matchAll(/<var\b([^>]*?)\/?>/g)) {
    const a = attrs(v[1]);
    if (!a.dir) continue;
    ports.push({
      name: a.origName ?? a.name,
      direction: a.dir,
      width: widthOf(a.dtype_id) ?? -1,
      pin: Number(a.pinIndex),
    });
  }
  return ports.sort((x, y) => x.pin - y.pin).map(({ name, direction, width }) => ({ name, direction, width }));
}
