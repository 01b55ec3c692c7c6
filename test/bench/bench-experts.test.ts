/**
 * Complementary experts (issue 20): two replay experts, each closing a design the other cannot. Alone each closes
 * one item; as an ensemble (one candidate each per round, the simulator keeps the best) they close both, and the
 * bench reports which expert won each item, the closes per expert and the oracle beside Pass@1.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';
import { fileReply } from '../helpers/replay';

const fifoClose = (JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as { responses: string[] }).responses[0];

const fifoResetOnly = fileReply(`module tb_fifo;
  logic clk = 0, rst_n = 0, push = 0, pop = 0;
  logic [7:0] din = 0;
  wire [7:0] dout;
  wire full, empty, almost_full, overrun, underrun;
  wire [2:0] level;
  fifo uut (.clk(clk), .rst_n(rst_n), .push(push), .pop(pop), .din(din), .dout(dout), .full(full), .empty(empty),
            .almost_full(almost_full), .overrun(overrun), .underrun(underrun), .level(level));
  always #5 clk = ~clk;
  initial begin
    repeat (2) @(posedge clk);
    $finish;
  end
endmodule`);

const counterTb = (body: string) =>
  fileReply(
    `module tb_counter;
  logic clk = 0, rst_n = 0, en = 0;
  logic [1:0] mode = 0;
  logic [7:0] load_value = 0;
  wire [7:0] count;
  wire overflow, underflow;
  counter uut (.clk(clk), .rst_n(rst_n), .en(en), .mode(mode), .load_value(load_value), .count(count), .overflow(overflow), .underflow(underflow));
  always #5 clk = ~clk;
  initial begin
    repeat (2) @(posedge clk);
${body}
    repeat (2) @(posedge clk);
    $finish;
  end
endmodule`,
    'tb_counter.sv',
  );
// Every mode, down from 0 (underflow), load 255 then up (overflow): every line of the counter runs.
const counterClose = counterTb(`    @(negedge clk); rst_n = 1; en = 1; mode = 2'b10;
    @(negedge clk); mode = 2'b11; load_value = 8'hff;
    @(negedge clk); mode = 2'b01;
    @(negedge clk); mode = 2'b00;
    @(negedge clk); en = 0;`);
const counterResetOnly = counterTb('    @(negedge clk); rst_n = 1;');

interface BenchJson {
  pass_at_1: number;
  results: { id: string; pass: boolean; experts?: { kept?: string; rounds: (string | null)[]; experts: string[]; closedBy: string[] } }[];
  experts?: { rows: { expert: string; wins: number; closes: number }[]; oracle: number; ensemble: number; items: number };
}

test('complementary replay experts: each alone closes one design, the ensemble closes both and the bench names the winners', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-bench-experts-'));
  const read = (example: string, file: string) => readFileSync(join(repoRoot, 'examples', example, file), 'utf8');
  const items = [
    { id: 'counter', rtl_files: [{ name: 'counter.sv', content: read('counter', 'counter.sv') }], spec_files: [], dut_module_name: 'counter', dut_instance_name: 'uut', targets: [{ inst_name: 'uut', metric: 'line', target_percentage: 100 }] },
    { id: 'fifo', rtl_files: [{ name: 'fifo.sv', content: read('fifo', 'fifo.sv') }], spec_files: [], dut_module_name: 'fifo', dut_instance_name: 'uut', targets: [{ inst_name: 'uut', metric: 'line', target_percentage: 50 }] },
  ];
  const dataset = join(dir, 'items.jsonl');
  writeFileSync(dataset, items.map((i) => JSON.stringify(i)).join('\n') + '\n');
  // Replies are taken in order across items. Alone (2 generations an item): the counter expert closes the counter and
  // fails the FIFO twice; the FIFO expert fails the counter (once with a FIFO testbench) and closes the FIFO. Together
  // (one candidate each per round) an item stops at the round that closes it, so each uses its first two replies.
  const counterExpert = join(dir, 'counter-expert.json');
  const fifoExpert = join(dir, 'fifo-expert.json');
  writeFileSync(counterExpert, JSON.stringify({ responses: [counterClose, fifoResetOnly, fifoResetOnly] }));
  writeFileSync(fifoExpert, JSON.stringify({ responses: [counterResetOnly, fifoClose, fifoClose] }));

  const bench = async (experts: string[], extra: string[] = []) => {
    const r = await runCli(['bench', dataset, '--engine', 'llm', ...experts.flatMap((e) => ['--expert', `replay:${e}`]), '--rounds', '1', '--seed', '3', '--json', ...extra], {
      timeoutMs: 400_000,
    });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout) as BenchJson;
  };
  const passed = (b: BenchJson) => b.results.filter((r) => r.pass).map((r) => r.id);

  assert.deepEqual(passed(await bench([counterExpert])), ['counter'], 'the counter expert alone closes only the counter');
  assert.deepEqual(passed(await bench([fifoExpert])), ['fifo'], 'the FIFO expert alone closes only the FIFO');

  const out = join(dir, 'out');
  const ensemble = await bench([counterExpert, fifoExpert], ['--out', out]);
  assert.deepEqual(passed(ensemble), ['counter', 'fifo'], 'together they close the union');
  assert.equal(ensemble.pass_at_1, 1);
  const label = (file: string) => `replay:${file}`;
  const [counterItem, fifoItem] = ensemble.results;
  assert.equal(counterItem.experts?.kept, label(counterExpert));
  assert.deepEqual(counterItem.experts?.rounds, [label(counterExpert)]);
  assert.deepEqual(counterItem.experts?.closedBy, [label(counterExpert)]);
  assert.equal(fifoItem.experts?.kept, label(fifoExpert));
  assert.deepEqual(fifoItem.experts?.closedBy, [label(fifoExpert)]);
  assert.deepEqual(ensemble.experts, {
    rows: [
      { expert: label(counterExpert), wins: 1, closes: 1 },
      { expert: label(fifoExpert), wins: 1, closes: 1 },
    ],
    oracle: 2,
    ensemble: 2,
    items: 2,
  });

  // The written summary has the expert table (the terminal report prints the same).
  const summary = readFileSync(join(out, 'summary.md'), 'utf8');
  assert.match(summary, /## Experts/);
  assert.match(summary, /Oracle \(items any expert closes\): 2\/2 \(100\.0%\) · ensemble Pass@1: 2\/2/);
});
