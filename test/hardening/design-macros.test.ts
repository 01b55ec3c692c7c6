// A testbench that reaches through the design's own macros: a `define of the DUT that enables an `ifdef around
// `$system`, a DUT macro that `include`s a computed name, and the file-reading tasks. Each is rejected with its rule
// and the testbench's file:line before anything is simulated, from `coverage --tb` and from a model's reply (a replay
// model, and an OpenAI-compatible endpoint on loopback whose captured requests never hold the canary's text).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkTestbench } from '../../src/sim/sandbox';
import { bwrapAvailable } from '../../src/sim/sandbox/jail';
import { runCli } from '../helpers/cli';
import { loopback, readBody } from '../llm/support';
import { removeScratch, scratch, suiteCache } from './support';

after(removeScratch);

const secret = `CANARY-${Math.random().toString(36).slice(2)}-TEXT`;
const outside = scratch('chorus-canary-');
const canary = join(outside, 'canary.txt');
writeFileSync(canary, `${secret}\n${secret} second line\n`);

const dutText = [
  '`define WIDTH 8',
  '`define INC(f) `include f',
  '`define PEEK `include "CANARY"',
  'module dut(input logic clk, input logic rst_n, output logic [`WIDTH-1:0] q);',
  '  always_ff @(posedge clk or negedge rst_n) if (!rst_n) q <= 0; else q <= q + 1;',
  'endmodule',
  '',
]
  .join('\n')
  .replace('CANARY', canary);

/** A workspace holding the DUT; `marker` is where a `$system` that ran would write. */
function workspace(): { dir: string; dut: string; marker: string } {
  const dir = join(scratch('chorus-macros-'), 'work');
  mkdirSync(dir);
  const dut = join(dir, 'dut.sv');
  writeFileSync(dut, dutText);
  return { dir, dut, marker: join(dir, 'marker') };
}

const head = [
  'module tb;',
  '  logic clk = 0, rst_n = 0; logic [7:0] q; int fd, r; string s; logic [7:0] mem [0:3];',
  '  dut uut(.clk(clk), .rst_n(rst_n), .q(q));',
];
const tail = [
  '  initial begin repeat (4) #1 clk = ~clk; rst_n = 1; repeat (8) #1 clk = ~clk; $finish; end',
  'endmodule',
  '',
];
/** Testbench text with `body` on line 4. */
const tbWith = (body: string): string => [...head, body, ...tail].join('\n');

/** Each attack, the rule it must trigger; all on line 4 of the testbench. */
function attacks(marker: string): Array<{ name: string; body: string; rule: string }> {
  return [
    {
      name: 'system behind the DUT define',
      body: `\`ifdef WIDTH initial r = $system("id > ${marker}"); \`endif`,
      rule: 'system-task',
    },
    {
      name: 'DPI behind the DUT define',
      body: '`ifdef WIDTH import "DPI-C" function int system(input string c); `endif',
      rule: 'dpi',
    },
    {
      name: 'file write behind the DUT define',
      body: `\`ifdef WIDTH initial fd = $fopen("${marker}", "w"); \`endif`,
      rule: 'file-output',
    },
    { name: 'include through the DUT macro', body: `\`INC("${canary}")`, rule: 'include-macro' },
    {
      name: 'fopen for reading',
      body: `initial begin fd = $fopen("${canary}", "r"); r = $fgets(s, fd); $error("%s", s); end`,
      rule: 'file-input',
    },
    {
      name: 'readmemh',
      body: `initial begin $readmemh("${canary}", mem); $error("%s", mem[0]); end`,
      rule: 'file-input',
    },
  ];
}

test('coverage --tb: every attack through the design macros is rejected with its rule at tb.sv:4, nothing runs, no canary text is shown', async () => {
  const { dir, dut, marker } = workspace();
  for (const a of attacks(marker)) {
    const tb = join(dir, 'tb.sv');
    writeFileSync(tb, tbWith(a.body));
    const r = await runCli(['coverage', dut, '--tb', tb, '--json'], {
      cwd: dir,
      env: { CHORUS_CACHE_DIR: suiteCache },
    });
    assert.equal(r.code, 2, `${a.name}: exit 2 (rejected)\n${r.stdout}\n${r.stderr}`);
    const report = JSON.parse(r.stdout) as {
      status: string;
      diagnostics: { file: string; line: number; message: string }[];
    };
    assert.equal(report.status, 'rejected', a.name);
    const hit = report.diagnostics.find((d) => d.message.endsWith(`[${a.rule}]`));
    assert.ok(hit, `${a.name}: a [${a.rule}] finding in ${JSON.stringify(report.diagnostics)}`);
    assert.equal(hit.line, 4, `${a.name}: located at the testbench's line`);
    assert.match(hit.file, /tb\.sv$/);
    assert.equal(existsSync(marker), false, `${a.name}: nothing ran`);
    assert.ok(!r.stdout.includes(secret) && !r.stderr.includes(secret), `${a.name}: the canary's text is never shown`);
  }
});

test('a DUT macro that includes a literal path outside the workspace: the jail hides the file, and without the jail only its path is named', async () => {
  const { dir, dut } = workspace();
  const tb = join(dir, 'tb_peek.sv');
  writeFileSync(tb, tbWith('`PEEK'));
  assert.ok(
    bwrapAvailable(),
    'bubblewrap must run here (npm test installs the Debian package bubblewrap): the jail is the default',
  );
  for (const useJail of [true, false]) {
    let findings: string;
    try {
      findings = JSON.stringify(await checkTestbench(tb, { verilatorPath: 'verilator', designFiles: [dut], useJail }));
    } catch (err) {
      // In the jail the preprocessor cannot see the file at all: a preprocessing error naming the path.
      findings = String(err);
    }
    assert.ok(
      findings.includes(canary) || findings.includes('include-outside-workspace'),
      `jail ${useJail}: ${findings}`,
    );
    assert.ok(!findings.includes(secret), `jail ${useJail}: the canary's text is in no finding`);
  }
  const violations = await checkTestbench(tb, { verilatorPath: 'verilator', designFiles: [dut], useJail: false });
  assert.deepEqual(
    violations.map((v) => [v.rule, v.line]),
    [['include-outside-workspace', 4]],
  );
});

test("the DUT's own text is not judged: a design that reads its own file with $readmemh builds with a clean testbench", async () => {
  const dir = join(scratch('chorus-own-'), 'work');
  mkdirSync(dir);
  writeFileSync(join(dir, 'init.hex'), '01\n02\n03\n04\n');
  const dut = join(dir, 'rom.sv');
  writeFileSync(
    dut,
    [
      'module rom(input logic clk, input logic [1:0] a, output logic [7:0] d);',
      '  logic [7:0] mem [0:3];',
      `  initial $readmemh("${join(dir, 'init.hex')}", mem);`,
      '  always_ff @(posedge clk) d <= mem[a];',
      'endmodule',
      '',
    ].join('\n'),
  );
  const tb = join(dir, 'tb.sv');
  writeFileSync(
    tb,
    [
      'module tb; logic clk = 0; logic [1:0] a = 0; logic [7:0] d;',
      '  rom u(.*);',
      '  initial begin repeat (16) begin #1 clk = ~clk; a = a + 1; end $display("d=%0d", d); $finish; end',
      'endmodule',
      '',
    ].join('\n'),
  );
  const r = await runCli(['coverage', dut, '--tb', tb, '--json'], { cwd: dir, env: { CHORUS_CACHE_DIR: suiteCache } });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((JSON.parse(r.stdout) as { status: string }).status, 'ok');
});

/** A reply of the model with `code` as its testbench. */
const reply = (code: string): string => `filename: tb.sv\n\`\`\`systemverilog\n${code}\`\`\`\n`;

/** The attacks two at a time: the loop stops after two rounds without a gain, so each run gets two replies. */
const pairs = <T>(list: T[]): T[][] => list.flatMap((_x, i) => (i % 2 === 0 ? [list.slice(i, i + 2)] : []));

test('generate with a replay model: the escape through the DUT define and the reads are rejected every round, and nothing runs', async () => {
  const { dir, dut, marker } = workspace();
  for (const pair of pairs(attacks(marker))) {
    const replayFile = join(dir, 'replay.json');
    writeFileSync(replayFile, JSON.stringify({ responses: pair.map((a) => reply(tbWith(a.body))) }));
    const r = await runCli(
      [
        'generate',
        dut,
        '--engine',
        'llm',
        '--model',
        `replay:${replayFile}`,
        '--rounds',
        '1',
        '--no-formal',
        '--json',
        '--out',
        join(dir, 'out.sv'),
        '--force',
      ],
      {
        cwd: dir,
        env: { CHORUS_CACHE_DIR: suiteCache },
      },
    );
    assert.notEqual(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as { rounds: { status: string }[] };
    assert.deepEqual(
      result.rounds.map((x) => x.status),
      ['rejected', 'rejected'],
      pair.map((a) => a.name).join(', '),
    );
    assert.equal(existsSync(marker), false, 'no $system ran');
    assert.ok(!r.stdout.includes(secret), "the canary's text is in no result");
  }
});

test("generate with an endpoint on loopback: the model is told each rule, and no request ever holds the canary's text", async () => {
  const { dir, dut, marker } = workspace();
  const bodies: string[] = [];
  let replies: string[] = [];
  const server = await loopback(async (req, res) => {
    bodies.push(await readBody(req));
    const content = replies.shift() ?? reply(tbWith(''));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'c',
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      }),
    );
  });
  try {
    for (const a of attacks(marker)) {
      // The second request carries the first reply's feedback.
      replies = [reply(tbWith(a.body)), reply(tbWith(''))];
      const before = bodies.length;
      const r = await runCli(
        [
          'generate',
          dut,
          '--engine',
          'llm',
          '--endpoint',
          server.url,
          '--api-model',
          'chorus-4b',
          '--rounds',
          '1',
          '--no-formal',
          '--json',
          '--out',
          join(dir, 'out.sv'),
          '--force',
        ],
        { cwd: dir, env: { CHORUS_CACHE_DIR: suiteCache } },
      );
      assert.equal(bodies.length - before, 2, `two requests: ${r.stderr}`);
      assert.ok(bodies[before + 1]?.includes(`[${a.rule}]`), `the model is told [${a.rule}] (${a.name})`);
    }
    assert.ok(!bodies.join('\n').includes(secret), "no request holds the canary's text");
    assert.equal(existsSync(marker), false, 'no $system ran');
  } finally {
    await server.close();
  }
});
