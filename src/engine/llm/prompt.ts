/**
 * The consolidated CHORUS model was trained on one conversation shape (FIELD-NOTES, "The model's interface"):
 * a system message, a user message with `<context>`/`<instructions>`, then follow-up user messages of a header line
 * and `- key: value` bullets. The wording here is ours; the structure is what the model expects.
 */
import type { ChatMessage, ResetInfo, SourceFile } from '../../protocol';

export const SYSTEM_PROMPT = `You are an expert in hardware verification testbenches.

Write one SystemVerilog testbench that reaches the highest possible coverage of the RTL project you are given.

How to answer:

1. First state the testbench file name as plain text, on its own line, in this form:
     filename: tb_<name>.sv
2. Then give the complete testbench in a single fenced SystemVerilog code block:
\`\`\`systemverilog
module tb_example;
  ...
endmodule
\`\`\`
3. Drive stimulus only: the testbench MUST NOT check outputs or contain assertions.
Exercise as many RTL paths as you can instead.
4. Base the stimulus on the RTL context and the instructions you are given.
5. Put only code inside the fenced block.
6. Do not put the filename line inside a code block.

Answer in this order:
1. The plain-text filename line
2. The SystemVerilog code block
`;

export interface OpeningPromptInput {
  rtl: SourceFile[];
  specs: SourceFile[];
  top: string;
  /** Instance name the testbench must give the DUT. */
  instance: string;
  /** Extra instruction text (for example, the kinds to aim at). */
  extra?: string;
  /** The DUT's clock input, when analysis found one. */
  clock?: string | null;
  /** Its reset input: name, polarity, synchronous or not. */
  reset?: ResetInfo | null;
}

/** Constructs small models like to write that Verilator rejects or mis-simulates, named so they are avoided. */
const VERILATOR_LIMITS =
  'The testbench is built with Verilator (--timing): avoid program blocks, classes with randomize()/constraints, covergroups, fork...join_none with disable fork, force/release on DUT internals, #delays inside functions, and $random seeding with $urandom(seed) calls in module scope.';

function clockResetText(clock: string | null | undefined, reset: ResetInfo | null | undefined): string {
  const parts: string[] = [];
  if (clock) parts.push(`The clock input is '${clock}' (rising edge); toggle it in the testbench.`);
  if (reset) {
    const level = reset.activeLow ? 'active-low (0 resets)' : 'active-high (1 resets)';
    parts.push(`The reset input is '${reset.name}', ${level}, ${reset.async ? 'asynchronous' : 'synchronous (sampled on the clock edge)'}: assert it at the start, then release it.`);
  }
  return parts.join(' ');
}

function fileBlock(files: SourceFile[]): string {
  return files.map((f) => `// File: ${f.name}\n${f.content.replace(/\s+$/, '')}`).join('\n\n');
}

export function instructionsFor(top: string, instance: string, extra?: string, clock?: string | null, reset?: ResetInfo | null): string {
  const lines = [
    `Write a SystemVerilog testbench for the RTL design. The top module is '${top}' and it must be instantiated as '${instance}'.`,
    'Drive stimulus only (no checks or assertions) to reach the highest line, toggle, FSM and branch coverage.',
  ];
  const cr = clockResetText(clock, reset);
  if (cr) lines.push(cr);
  lines.push('End the stimulus with $finish after a bounded number of cycles: a simulation still running at the time limit is stopped and counts as failed.');
  lines.push(VERILATOR_LIMITS);
  if (extra) lines.push(extra.trim());
  return lines.join(' ');
}

/** The two opening messages: system, then the RTL and spec context with the instructions. */
export function buildOpeningMessages(input: OpeningPromptInput): ChatMessage[] {
  const specs = input.specs.length ? fileBlock(input.specs) : '// No specification files were provided.';
  const user = [
    '<context>',
    `${fileBlock(input.rtl)}\n\n${specs}`,
    '</context>',
    '<instructions>',
    instructionsFor(input.top, input.instance, input.extra, input.clock, input.reset),
    '</instructions>',
    'Write the SystemVerilog testbench that maximizes coverage of this RTL project.',
  ].join('\n');
  return [
    { role: 'system', content: SYSTEM_PROMPT },
    { role: 'user', content: user },
  ];
}

export type Bullets = Record<string, string>;

function bulletMessage(header: string, bullets: Bullets): ChatMessage {
  const lines = Object.entries(bullets).map(([k, v]) => `- ${k}: ${v}`);
  return { role: 'user', content: [header, ...lines].join('\n') };
}

export interface FollowupInput {
  parse: Bullets;
  /** Patch replies only. */
  apply?: Bullets;
  /** Patch replies only: the testbench after the patch. */
  testbench?: string;
  eda?: Bullets;
  instruction: string;
}

/** Follow-up user messages after a reply: parse, patch, current testbench, EDA result, next instruction. */
export function buildFollowupMessages(input: FollowupInput): ChatMessage[] {
  const out: ChatMessage[] = [bulletMessage('Response parse result:', input.parse)];
  if (input.apply) out.push(bulletMessage('Patch apply result:', input.apply));
  if (input.testbench !== undefined && input.parse.type === 'patch') {
    out.push({ role: 'user', content: `Current testbench contents:\n${input.testbench.replace(/\s+$/, '')}` });
  }
  if (input.eda) out.push(bulletMessage('EDA result:', input.eda));
  out.push({ role: 'user', content: `Instruction for next round:\n${input.instruction.trim()}` });
  return out;
}

/** The reply as the model would have written a whole-file answer, for seeding a run with an existing testbench. */
export function asFileReply(filename: string, testbench: string): string {
  return `filename: ${filename}\n\`\`\`systemverilog\n${testbench.replace(/\s+$/, '')}\n\`\`\``;
}
