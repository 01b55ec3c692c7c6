/** The CVDP-ECov item schema (one JSON object per line), checked with a JSON schema so bad items are named. */
import Ajv from 'ajv';

export interface BenchFile {
  name: string;
  content: string;
}

export interface BenchTarget {
  inst_name: string;
  metric: string;
  target_percentage: number;
}

export interface BenchItem {
  id: string;
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

const ajv = new Ajv({ allErrors: true });
const validateItem = ajv.compile(itemSchema);

export type ParsedLine = { ok: true; item: BenchItem; line: number } | { ok: false; id: string; line: number; error: string };

/** Parses every non-empty line; a bad line becomes an error entry, never an exception. */
export function parseItems(text: string): ParsedLine[] {
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
