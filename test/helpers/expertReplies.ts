/**
 * Model replies for expert and candidate tests: testbenches of known strength on the counter and FIFO examples, so
 * a test can build experts that close a design and experts that only reset it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './cli';
import { fileReply } from './replay';

/** The recorded replies that close the FIFO example (test/fixtures/replay/fifo.json). */
export const fifoRecorded = (
  JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as { responses: string[] }
).responses;

/** Compiles, but only resets the FIFO: far less coverage than the recorded testbench. */
export const fifoResetOnly = fileReply(`module tb_fifo;
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

/** Every mode, down from 0 (underflow), load 255 then up (overflow): every line of the counter runs. */
export const counterClose = counterTb(`    @(negedge clk); rst_n = 1; en = 1; mode = 2'b10;
    @(negedge clk); mode = 2'b11; load_value = 8'hff;
    @(negedge clk); mode = 2'b01;
    @(negedge clk); mode = 2'b00;
    @(negedge clk); en = 0;`);

/** Only resets the counter. */
export const counterResetOnly = counterTb('    @(negedge clk); rst_n = 1;');
