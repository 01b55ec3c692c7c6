/** Prompt templates as data: the built-in file keeps the trained shape; a user's file replaces wording, checked at load. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateToEnd } from '../../src/engine';
import { buildFollowupMessage, buildOpeningMessages } from '../../src/engine/llm/prompt';
import { DEFAULT_TEMPLATES, loadTemplates, validateTemplates } from '../../src/engine/llm/templates';
import type { ChatBackend, ChatOptions, ChatResult } from '../../src/llm';
import { ChorusError, silentLogger, type ChatMessage } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';

const dir = mkdtempSync(join(tmpdir(), 'chorus-templates-'));
function file(name: string, data: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof data === 'string' ? data : JSON.stringify(data));
  return p;
}

test('the built-in templates validate and keep the trained structure', () => {
  assert.deepEqual(validateTemplates(DEFAULT_TEMPLATES, 'default.json'), DEFAULT_TEMPLATES);
  const [system, user] = buildOpeningMessages({
    rtl: [{ name: 'a.sv', content: 'module a; endmodule' }],
    specs: [],
    top: 'a',
    instance: 'uut',
    clock: 'clk',
    reset: { name: 'rst', activeLow: false, async: true },
  });
  assert.equal(system.role, 'system');
  assert.match(
    user.content,
    /^<context>\n\/\/ File: a\.sv\nmodule a; endmodule\n\n\/\/ No specification files were provided\.\n<\/context>\n<instructions>\n/,
  );
  assert.match(user.content, /The reset input is 'rst', active-high \(1 resets\), asynchronous/);
  assert.match(
    user.content,
    /<\/instructions>\nWrite the SystemVerilog testbench that maximizes coverage of this RTL project\.$/,
  );
  const follow = buildFollowupMessage({ parse: { status: 'success' }, eda: { status: 'success' }, instruction: 'go' });
  assert.deepEqual(
    follow.content
      .split('\n\n')
      .slice(0, 3)
      .map((section) => section.split('\n')[0]),
    ['Response parse result:', 'EDA result:', 'Instruction for next round:'],
  );
  assert.ok(
    follow.content.endsWith(`Instruction for next round:\ngo\n${DEFAULT_TEMPLATES.outputFormat}`),
    'the output format restated last',
  );
});

test('a bad templates file is refused at load, naming the file, the template and the placeholder', async () => {
  const cases: [unknown, RegExp][] = [
    [
      { opening: '<context>{{rtl}}{{specs}}</context>{{instructions}}{{design}}' },
      /"opening" uses the unknown placeholder \{\{design\}\}; it accepts \{\{rtl\}\}, \{\{specs\}\}, \{\{instructions\}\}/,
    ],
    [{ file: '{{content}}' }, /"file" must use \{\{name\}\}/],
    [
      { edaHeader: 'EDA {{status}}:' },
      /"edaHeader" uses the unknown placeholder \{\{status\}\}; it takes no placeholders/,
    ],
    [{ sytem: 'typo' }, /unknown template "sytem"/],
    [{ system: 3 }, /"system" must be a string/],
    [[], /must hold a JSON object/],
  ];
  for (const [data, pattern] of cases) {
    const p = file('bad.json', data);
    await assert.rejects(
      loadTemplates(p),
      (err: unknown) =>
        err instanceof ChorusError && err.kind === 'bad_input' && pattern.test(err.message) && err.message.includes(p),
      String(pattern),
    );
  }
  await assert.rejects(loadTemplates(file('broken.json', '{ not json')), /not valid JSON/);
  await assert.rejects(loadTemplates(join(dir, 'missing.json')), /Cannot read the prompt templates/);
});

test('a user templates file changes the wording the model sees, and keeps the rest built-in', async () => {
  const path = file('mine.json', {
    system: 'You write testbenches.',
    edaHeader: 'Simulator result:',
    instructions: 'Cover {{top}} through {{instance}}.',
    outputFormat: 'Answer: filename line, then one systemverilog block.',
  });
  const calls: ChatMessage[][] = [];
  const recorded = (
    JSON.parse(
      (await import('node:fs')).readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8'),
    ) as { responses: string[] }
  ).responses;
  const backend: ChatBackend = {
    label: 'recording',
    kind: 'replay',
    async chat(messages: ChatMessage[], options?: ChatOptions): Promise<ChatResult> {
      calls.push(messages);
      const text = recorded[calls.length - 1];
      options?.onToken?.(text);
      return {
        text,
        finishReason: 'stop',
        usage: { promptTokens: 1, evaluatedPromptTokens: 1, completionTokens: 1, ms: 1 },
      };
    },
    async dispose() {},
  };
  await generateToEnd(
    {
      rtlFiles: [join(repoRoot, 'examples', 'fifo', 'fifo.sv')],
      engine: 'llm',
      targets: { line: 100, branch: 100 },
      rounds: 1,
      promptTemplates: path,
    },
    { logger: silentLogger, signal: new AbortController().signal, backend },
  );
  assert.equal(calls[0][0].content, 'You write testbenches.');
  assert.match(calls[0][1].content, /<instructions>\nCover fifo through uut\./);
  assert.equal(calls.length, 2, 'rounds: 1 is the first generation and one refinement');
  assert.equal(calls[1].length, 4, 'system, user, the best reply, one follow-up message');
  const followup = calls[1][3].content;
  assert.match(followup, /^Response parse result:\n/, 'the headers not replaced stay built-in');
  assert.match(followup, /\n\nSimulator result:\n- status: success/);
  assert.ok(
    followup.endsWith('\nAnswer: filename line, then one systemverilog block.'),
    "the restated format is the user's",
  );
});

test('hybrid with a bad templates file: the search testbench is kept and the reason given', async () => {
  const bad = file('hybrid-bad.json', { file: '{{content}}' });
  const backend: ChatBackend = {
    label: 'never',
    kind: 'replay',
    chat: () => Promise.reject(new Error('the model must not be asked')),
    async dispose() {},
  };
  const result = await generateToEnd(
    // Arms the search cannot reach and, with the formal stage off, nothing proves: the model phase starts.
    {
      rtlFiles: [join(repoRoot, 'test', 'fixtures', 'formal', 'deepmatch.sv')],
      engine: 'hybrid',
      targets: { line: 100, branch: 100 },
      rounds: 1,
      seed: 3,
      budgetSeconds: 15,
      promptTemplates: bad,
      formal: false,
    },
    { logger: silentLogger, signal: new AbortController().signal, backend },
  );
  assert.equal(result.stopReason, 'error');
  assert.match(result.stopDetail ?? '', /"file" must use \{\{name\}\}/);
  assert.match(result.testbench, /Generated by CHORUS \(model-free engine/);
});
