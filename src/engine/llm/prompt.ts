/**
 * The consolidated CHORUS model was trained on one conversation shape (FIELD-NOTES, "The model's interface"):
 * a system message, a user message with `<context>`/`<instructions>`, then per round one follow-up user message of
 * sections (a header line and `- key: value` bullets) ending with the output format restated. The structure is
 * here; the wording is data (templates/default.json, or the user's).
 */
import type { ChatMessage, ResetInfo, SourceFile } from '../../protocol';
import { DEFAULT_TEMPLATES, fill, type PromptTemplates } from './templates';

/** The built-in system message (templates/default.json). */
export const SYSTEM_PROMPT = DEFAULT_TEMPLATES.system;

export interface OpeningPromptInput {
  rtl: SourceFile[];
  specs: SourceFile[];
  top: string;
  /** Instance name the testbench must give the DUT. */
  instance: string;
  /** Extra instruction text (for example, the kinds to aim at). */
  extra?: string | undefined;
  /** The DUT's clock input, when analysis found one. */
  clock?: string | null;
  /** Its reset input: name, polarity, synchronous or not. */
  reset?: ResetInfo | null;
  /** Top parameter overrides (`-G`), Verilog constant text: the DUT must be instantiated with them. */
  parameters?: Record<string, string> | undefined;
}

function clockResetText(
  t: PromptTemplates,
  clock: string | null | undefined,
  reset: ResetInfo | null | undefined,
): string[] {
  const parts: string[] = [];
  if (clock) parts.push(fill(t.clock, { clock }));
  if (reset) {
    parts.push(
      fill(t.reset, {
        reset: reset.name,
        polarity: reset.activeLow ? t.resetActiveLow : t.resetActiveHigh,
        timing: reset.async ? t.resetAsync : t.resetSync,
      }),
    );
  }
  return parts;
}

/** The effective top parameters: the RTL shows the defaults, the build uses these. */
function parameterText(t: PromptTemplates, top: string, parameters: Record<string, string>): string[] {
  const list = Object.entries(parameters);
  return list.length
    ? [fill(t.parameters, { top, parameters: `#(${list.map(([n, v]) => `.${n}(${v})`).join(', ')})` })]
    : [];
}

function fileBlock(files: SourceFile[], t: PromptTemplates): string {
  return files.map((f) => fill(t.file, { name: f.name, content: f.content.replace(/\s+$/, '') })).join('\n\n');
}

export function instructionsFor(
  top: string,
  instance: string,
  extra?: string,
  clock?: string | null,
  reset?: ResetInfo | null,
  t: PromptTemplates = DEFAULT_TEMPLATES,
  parameters: Record<string, string> = {},
): string {
  // Clock and reset, the $finish rule and Verilator's limits: a small model gets these wrong when not told.
  const lines = [
    fill(t.instructions, { top, instance }),
    ...parameterText(t, top, parameters),
    ...clockResetText(t, clock, reset),
    t.finish,
    t.verilatorLimits,
  ];
  if (extra) lines.push(extra.trim());
  return lines.filter((l) => l.trim()).join(' ');
}

/** The two opening messages: system, then the RTL and spec context with the instructions. */
export function buildOpeningMessages(input: OpeningPromptInput, t: PromptTemplates = DEFAULT_TEMPLATES): ChatMessage[] {
  const specs = input.specs.length ? fileBlock(input.specs, t) : t.noSpecs;
  const user = fill(t.opening, {
    rtl: fileBlock(input.rtl, t),
    specs,
    instructions: instructionsFor(
      input.top,
      input.instance,
      input.extra,
      input.clock,
      input.reset,
      t,
      input.parameters,
    ),
  });
  return [
    { role: 'system', content: t.system },
    { role: 'user', content: user },
  ];
}

export type Bullets = Record<string, string>;

function bulletSection(header: string, bullets: Bullets): string {
  return [header, ...Object.entries(bullets).map(([k, v]) => `- ${k}: ${v}`)].join('\n');
}

export interface FollowupInput {
  parse: Bullets;
  /** Patch replies only. */
  apply?: Bullets | undefined;
  /** Patch replies only: the testbench after the patch. */
  testbench?: string | undefined;
  eda?: Bullets | undefined;
  instruction: string;
}

/**
 * The follow-up after a reply, as LLM4Cov's agentic protocol sends it: ONE user message holding the sections one
 * after another (parse, patch, current testbench, EDA result, instruction), ending with the output format restated.
 */
export function buildFollowupMessage(input: FollowupInput, t: PromptTemplates = DEFAULT_TEMPLATES): ChatMessage {
  const sections: string[] = [bulletSection(t.parseHeader, input.parse)];
  if (input.apply) sections.push(bulletSection(t.applyHeader, input.apply));
  if (input.testbench !== undefined && input.parse.type === 'patch')
    sections.push(`${t.testbenchHeader}\n${input.testbench.replace(/\s+$/, '')}`);
  if (input.eda) sections.push(bulletSection(t.edaHeader, input.eda));
  sections.push(instructionSection(input.instruction, t));
  return { role: 'user', content: sections.join('\n\n') };
}

/** The last section of a follow-up: the instruction, then the output requirements restated. */
export function instructionSection(instruction: string, t: PromptTemplates = DEFAULT_TEMPLATES): string {
  return [t.instructionHeader, instruction.trim(), t.outputFormat.trim()].filter(Boolean).join('\n');
}

/** The reply as the model would have written a whole-file answer, for seeding a run with an existing testbench. */
export function asFileReply(filename: string, testbench: string): string {
  return `filename: ${filename}\n\`\`\`systemverilog\n${testbench.replace(/\s+$/, '')}\n\`\`\``;
}
