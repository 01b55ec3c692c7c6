/**
 * The prompt's wording as data: templates/default.json holds every text of the trained conversation shape, and a
 * user's file (`--prompt-templates`, `chorus.promptTemplates`) may replace any of them, for a model trained on
 * other words. Every placeholder is checked when the file is loaded, so a typo fails before a model is asked.
 */
import { resolve } from 'node:path';
import { ChorusError } from '../../protocol';
import { readUserText } from '../../protocol/userFile';
import defaults from './templates/default.json';

export type TemplateKey = Exclude<keyof typeof defaults, '$comment'>;
export type PromptTemplates = Record<TemplateKey, string>;

/** The placeholders each template accepts, and which of them it must use. */
const PLACEHOLDERS: Record<TemplateKey, { allowed: readonly string[]; required: readonly string[] }> = {
  system: { allowed: [], required: [] },
  opening: { allowed: ['rtl', 'specs', 'instructions'], required: ['rtl', 'specs', 'instructions'] },
  file: { allowed: ['name', 'content'], required: ['name', 'content'] },
  noSpecs: { allowed: [], required: [] },
  instructions: { allowed: ['top', 'instance'], required: ['top', 'instance'] },
  parameters: { allowed: ['top', 'parameters'], required: ['parameters'] },
  clock: { allowed: ['clock'], required: ['clock'] },
  reset: { allowed: ['reset', 'polarity', 'timing'], required: ['reset'] },
  resetActiveLow: { allowed: [], required: [] },
  resetActiveHigh: { allowed: [], required: [] },
  resetAsync: { allowed: [], required: [] },
  resetSync: { allowed: [], required: [] },
  finish: { allowed: [], required: [] },
  verilatorLimits: { allowed: [], required: [] },
  parseHeader: { allowed: [], required: [] },
  applyHeader: { allowed: [], required: [] },
  testbenchHeader: { allowed: [], required: [] },
  edaHeader: { allowed: [], required: [] },
  instructionHeader: { allowed: [], required: [] },
  outputFormat: { allowed: [], required: [] },
};

const KEYS = Object.keys(PLACEHOLDERS) as TemplateKey[];
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

/** Checks a template set (a user's file over the defaults); throws naming the file, the key and the placeholder. */
export function validateTemplates(data: unknown, file: string): PromptTemplates {
  if (!data || typeof data !== 'object' || Array.isArray(data)) {
    throw new ChorusError(
      'bad_input',
      `Prompt templates ${file} must hold a JSON object of template texts by name (${KEYS.join(', ')}).`,
      { file },
    );
  }
  const out: PromptTemplates = { ...DEFAULT_TEMPLATES };
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (key === '$comment' || key === '$schema') continue;
    if (!(KEYS as string[]).includes(key)) {
      throw new ChorusError(
        'bad_input',
        `Prompt templates ${file}: unknown template "${key}"; the templates are ${KEYS.join(', ')}.`,
        { file },
      );
    }
    if (typeof value !== 'string')
      throw new ChorusError('bad_input', `Prompt templates ${file}: "${key}" must be a string.`, { file });
    const spec = PLACEHOLDERS[key as TemplateKey];
    const used = placeholders(value);
    const unknown = used.find((p) => !spec.allowed.includes(p));
    if (unknown !== undefined) {
      const allowed = spec.allowed.length
        ? `it accepts ${spec.allowed.map((p) => `{{${p}}}`).join(', ')}`
        : 'it takes no placeholders';
      throw new ChorusError(
        'bad_input',
        `Prompt templates ${file}: "${key}" uses the unknown placeholder {{${unknown}}}; ${allowed}.`,
        { file },
      );
    }
    const missing = spec.required.find((p) => !used.includes(p));
    if (missing !== undefined)
      throw new ChorusError('bad_input', `Prompt templates ${file}: "${key}" must use {{${missing}}}.`, { file });
    out[key as TemplateKey] = value;
  }
  return out;
}

const { $comment: _comment, ...builtIn } = defaults;
export const DEFAULT_TEMPLATES: PromptTemplates = builtIn;

/** The user's templates over the defaults; the defaults when no file is given. */
export async function loadTemplates(path: string | undefined): Promise<PromptTemplates> {
  if (!path) return DEFAULT_TEMPLATES;
  const file = resolve(path);
  let text: string;
  try {
    text = await readUserText(file, { what: 'prompt template file' });
  } catch (err) {
    throw new ChorusError(
      'bad_input',
      `Cannot read the prompt templates ${file}: ${(err as Error).message.replace(/\.$/, '')}.`,
      { file },
    );
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new ChorusError('bad_input', `Prompt templates ${file} are not valid JSON: ${(err as Error).message}.`, {
      file,
    });
  }
  return validateTemplates(data, file);
}

/** Fills a template's placeholders (all validated at load). */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(PLACEHOLDER, (whole, name: string) => values[name] ?? whole);
}
