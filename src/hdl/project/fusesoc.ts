/**
 * FuseSoC CAPI2 cores (`*.core`), the core's own filesets as its `default` target uses them: Verilog and
 * SystemVerilog files in order, include files (`is_include_file`) as include folders (`include_path`, else the
 * file's folder) and not compiled, other file types left out; `vlogdefine` parameters with a value as macros.
 * Fileset names may carry FuseSoC flags (`tool_verilator ? (rtl)`, `!flag ? (…)`): `tool_verilator`,
 * `target_default` and the project targets are set. Dependencies (`depend`) are other cores: not read.
 * Paths are relative to the core's folder.
 */
import { dirname, extname } from 'node:path';
import { add, FilelistReader, lineError, readDesignText, type Filelist, type FilelistOptions } from '../filelist';
import { at, field, items, needText, parseTree, text, type Node } from './tree';

const VERILOG_EXTENSIONS = new Set(['.v', '.sv', '.vh', '.svh', '.vlt']);
/** The attribute keys of a file entry CHORUS reads or may leave aside. */
const FILE_ATTRIBUTES = new Set(['is_include_file', 'include_path', 'file_type', 'logical_name', 'copyto', 'tags']);

function isVerilogType(type: string | undefined, path: string): boolean {
  if (type === undefined) return VERILOG_EXTENSIONS.has(extname(path).toLowerCase()) && extname(path) !== '.vlt';
  return /^(system)?verilogSource(-.*)?$/i.test(type);
}

/** Fileset names of a `filesets:` list entry, with FuseSoC's `flag ? (names)` and `!flag ? (names)`. */
export function filesetNames(expr: string, flags: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const tokens = expr.match(/!?[A-Za-z0-9_.-]+\s*\?\s*\(|\)|[^\s()]+/g) ?? [];
  const stack: boolean[] = [];
  for (const t of tokens) {
    const cond = /^(!?)([A-Za-z0-9_.-]+)\s*\?\s*\($/.exec(t);
    if (cond) stack.push(flags.has(cond[2].toLowerCase()) !== (cond[1] === '!'));
    else if (t === ')') {
      if (!stack.length) throw new Error(`an unmatched \`)\` in '${expr}'`);
      stack.pop();
    } else if (/^[A-Za-z0-9_.-]+$/.test(t)) {
      if (stack.every(Boolean)) out.push(t);
    } else throw new Error(`\`${t}\` is not a fileset name or flag condition`);
  }
  if (stack.length) throw new Error(`a \`(\` without its \`)\` in '${expr}'`);
  return out;
}

/** Reads a CAPI2 core's default target. */
export async function readFusesoc(file: string, opts: FilelistOptions = {}): Promise<Filelist> {
  const tree = parseTree(await readDesignText(file, 'FuseSoC core'), file);
  const reader = new FilelistReader(process.cwd(), opts.env ?? process.env);
  const out = reader.result;
  add(out.lists, file);
  const dir = dirname(file);
  if (!field(tree, 'CAPI=2'))
    throw lineError(
      at(file, tree),
      'Not a FuseSoC CAPI2 core: its first line must be CAPI=2: (CAPI1 cores are not read)',
    );
  const target = field(field(tree, 'targets'), 'default');
  if (!target)
    throw lineError(
      at(file, field(tree, 'targets') ?? tree),
      'The core has no targets: default: target to take its filesets from',
    );
  const flags = new Set(['tool_verilator', 'target_default', ...(opts.targets ?? []).map((t) => t.toLowerCase())]);
  const filesets = field(tree, 'filesets');
  const names: { name: string; node: Node }[] = [];
  for (const key of ['filesets', 'filesets_append']) {
    for (const item of items(field(target, key))) {
      const expr = needText(file, item, 'a fileset name');
      try {
        names.push(...filesetNames(expr, flags).map((name) => ({ name, node: item })));
      } catch (err) {
        throw lineError(at(file, item), `Unknown fileset expression: ${(err as Error).message}`);
      }
    }
  }
  for (const { name, node } of names) {
    const set = field(filesets, name);
    if (!set) throw lineError(at(file, node), `No fileset '${name}' under filesets: check the name`);
    const setType = text(field(set, 'file_type'));
    for (const entry of items(field(set, 'files'))) {
      let pathNode: Node = entry;
      let attrs: Node | undefined;
      if (entry.kind === 'map') {
        if (entry.entries.length !== 1)
          throw lineError(at(file, entry), 'A file entry is `path` or `path: {attributes}`');
        pathNode = { kind: 'scalar', line: entry.entries[0].line, value: entry.entries[0].key };
        attrs = entry.entries[0].value;
        const unknown = attrs.kind === 'map' ? attrs.entries.find((e) => !FILE_ATTRIBUTES.has(e.key)) : undefined;
        if (unknown) throw lineError(at(file, unknown), `Unknown file attribute '${unknown.key}'`);
      }
      const path = needText(file, pathNode, 'a file path');
      const where = at(file, pathNode);
      const full = await reader.existing(path, dir, where, 'file');
      const include = text(field(attrs, 'is_include_file')) === 'true';
      if (include) {
        const incPath = text(field(attrs, 'include_path'));
        add(out.includeDirs, incPath ? await reader.existing(incPath, dir, where, 'dir') : dirname(full));
      } else if (isVerilogType(text(field(attrs, 'file_type')) ?? setType, full)) add(out.files, full);
    }
  }
  const params = field(tree, 'parameters');
  for (const item of items(field(target, 'parameters'))) {
    const spec = needText(file, item, 'a parameter name');
    const eq = spec.indexOf('=');
    const name = eq < 0 ? spec : spec.slice(0, eq);
    const param = field(params, name);
    if (!param) throw lineError(at(file, item), `No parameter '${name}' under parameters: check the name`);
    if (text(field(param, 'paramtype')) !== 'vlogdefine') continue;
    const value = eq < 0 ? text(field(param, 'default')) : spec.slice(eq + 1);
    if (value === undefined) continue;
    const datatype = text(field(param, 'datatype'));
    out.defines[name] = datatype === 'bool' ? (value === 'true' ? '1' : '0') : value;
  }
  return out;
}
