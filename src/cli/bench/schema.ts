/** The CVDP-ECov item schema (one JSON object per line), checked with a JSON schema so bad items are named. */
import { resolve } from 'node:path';
import Ajv from 'ajv';
import { parameterValueError } from '../../protocol';

export interface BenchFile {
  name: string;
  content: string;
}

export interface BenchTarget {
  inst_name: string;
  metric: string;
  target_percentage: number;
}

/** A real-IP item's design (`../shared/corpus/real-ip/items.jsonl`): read from its filelist, not inline. */
export interface BenchDesign {
  /** The item's filelist, absolute (given relative to the JSONL file). */
  filelist: string;
  /** The folder the filelist's paths are relative to (the JSONL file's, as a top-level `-f` reads them). */
  root: string;
  /** Top parameter overrides, Verilog constant text. */
  parameters: Record<string, string>;
}

export interface BenchItem {
  id: string;
  /** Set for a real-IP item: `rtl_files` is then empty and the sources come from the filelist. */
  design?: BenchDesign;
  rtl_files: BenchFile[];
  spec_files: BenchFile[];
  dut_module_name: string;
  dut_instance_name: string;
  instruction?: string;
  targets: BenchTarget[];
  difficulty?: string;
  is_agentic?: boolean;
}

const file = {
  type: 'object',
  required: ['name', 'content'],
  properties: { name: { type: 'string', minLength: 1 }, content: { type: 'string' } },
};

const itemSchema = {
  type: 'object',
  required: ['id', 'rtl_files', 'dut_module_name', 'targets'],
  properties: {
    id: { type: 'string', minLength: 1 },
    rtl_files: { type: 'array', minItems: 1, items: file },
    spec_files: { type: 'array', items: file },
    dut_module_name: { type: 'string', minLength: 1 },
    dut_instance_name: { type: 'string', minLength: 1 },
    instruction: { type: 'string' },
    targets: {
      type: 'array',
      items: {
        type: 'object',
        required: ['metric', 'target_percentage'],
        properties: {
          inst_name: { type: 'string' },
          metric: { type: 'string', minLength: 1 },
          target_percentage: { type: 'number', minimum: 0, maximum: 100 },
        },
      },
    },
    difficulty: { type: 'string' },
    is_agentic: { type: 'boolean' },
  },
};

/** The real-IP item shape: `{id, top, filelist, parameters?, notes?}`; no targets (coverage reached is reported). */
const realIpSchema = {
  type: 'object',
  required: ['id', 'top', 'filelist'],
  properties: {
    id: { type: 'string', minLength: 1 },
    top: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_$]*$' },
    filelist: { type: 'string', minLength: 1 },
    parameters: {
      type: 'object',
      propertyNames: { pattern: '^[A-Za-z_][A-Za-z0-9_$]*$' },
      additionalProperties: { anyOf: [{ type: 'number' }, { type: 'string' }, { type: 'boolean' }] },
    },
    notes: { type: 'string' },
  },
};

interface RealIpItem {
  id: string;
  top: string;
  filelist: string;
  parameters?: Record<string, number | string | boolean>;
}

const ajv = new Ajv({ allErrors: true });
const validateItem = ajv.compile(itemSchema);
const validateRealIp = ajv.compile(realIpSchema);

/** A JSON parameter value as Verilog constant text: numbers and booleans as numbers, strings as written. */
function verilogValue(v: number | string | boolean): string {
  return typeof v === 'boolean' ? (v ? '1' : '0') : String(v);
}

function fromRealIp(d: RealIpItem, baseDir: string): BenchItem {
  return {
    id: d.id,
    rtl_files: [],
    spec_files: [],
    dut_module_name: d.top,
    dut_instance_name: 'uut',
    targets: [],
    design: {
      filelist: resolve(baseDir, d.filelist),
      root: resolve(baseDir),
      parameters: Object.fromEntries(Object.entries(d.parameters ?? {}).map(([k, v]) => [k, verilogValue(v)])),
    },
  };
}

export type ParsedLine =
  { ok: true; item: BenchItem; line: number } | { ok: false; id: string; line: number; error: string };

/**
 * Parses every non-empty line; a bad line becomes an error entry, never an exception. Lines in the real-IP shape
 * (a `filelist` instead of `rtl_files`) name their filelist relative to `baseDir`, the JSONL file's folder.
 */
export function parseItems(text: string, baseDir = process.cwd()): ParsedLine[] {
  const out: ParsedLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      out.push({ ok: false, id: `line ${line}`, line, error: `not JSON: ${(err as Error).message}` });
      return;
    }
    const id = typeof (value as { id?: unknown })?.id === 'string' ? (value as { id: string }).id : `line ${line}`;
    if (value && typeof value === 'object' && 'filelist' in value) {
      if (!validateRealIp(value)) {
        const why = (validateRealIp.errors ?? []).map((e) => `${e.instancePath || '(item)'} ${e.message}`).join('; ');
        out.push({ ok: false, id, line, error: `schema (real-IP item): ${why}` });
        return;
      }
      const item = fromRealIp(value as unknown as RealIpItem, baseDir);
      const bad = Object.entries(item.design?.parameters ?? {})
        .map(([name, v]) => parameterValueError(`parameters.${name}`, v))
        .find((m) => m !== undefined);
      out.push(bad ? { ok: false, id, line, error: bad } : { ok: true, line, item });
      return;
    }
    if (!validateItem(value)) {
      const why = (validateItem.errors ?? []).map((e) => `${e.instancePath || '(item)'} ${e.message}`).join('; ');
      out.push({ ok: false, id, line, error: `schema: ${why}` });
      return;
    }
    const item = value as unknown as BenchItem;
    out.push({
      ok: true,
      line,
      item: { ...item, spec_files: item.spec_files ?? [], dut_instance_name: item.dut_instance_name ?? 'uut' },
    });
  });
  return out;
}
