/**
 * `chorus.memoryLimit` reaches the engine: through the built language server over stdio, a run on a normal
 * design with the setting far too low for Verilator ends its build as `resource_limit`, naming that limit.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Requests, type GenerateResult } from '../../src/protocol';
import { repoRoot } from '../helpers/cli';
import { request, startServer, type ServerUnderTest } from '../helpers/lsp';
import { fileReply, replayModel } from '../helpers/replay';

const testbench = `module tb_counter;
  logic clk = 0, rst_n = 0, en = 1;
  logic [1:0] mode = 2'b01;
  logic [7:0] load_value = 8'd0;
  wire [7:0] count;
  wire overflow, underflow;
  counter uut (.*);
  always #5 clk = ~clk;
  initial begin
    repeat (2) @(negedge clk);
    rst_n = 1;
    repeat (4) @(negedge clk);
    $finish;
  end
endmodule`;

let work: string;
let lsp: ServerUnderTest;
let result: GenerateResult;
const savedCacheDir = process.env.CHORUS_CACHE_DIR;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'chorus-memory-setting-'));
  const design = join(work, 'counter.sv');
  copyFileSync(join(repoRoot, 'examples', 'counter', 'counter.sv'), design);
  // An empty cache of its own: no simulator built earlier (under a higher limit) can stand in for this build.
  process.env.CHORUS_CACHE_DIR = join(work, 'cache');
  const settings = {
    engine: 'llm',
    model: replayModel([fileReply(testbench, 'tb_counter.sv')]),
    maxRounds: 1,
    memoryLimit: '64M',
  };
  lsp = await startServer(() => settings);
  const uri = pathToFileURL(design).toString();
  result = await request(lsp.conn, Requests.generate, { uri, runId: 'memory-setting', top: 'counter' });
});

after(async () => {
  await lsp?.close();
  if (savedCacheDir === undefined) delete process.env.CHORUS_CACHE_DIR;
  else process.env.CHORUS_CACHE_DIR = savedCacheDir;
  rmSync(work, { recursive: true, force: true });
});

test('a run under chorus.memoryLimit 64M stops its build as resource_limit and says which limit', () => {
  assert.equal(result.rounds.length, 1, JSON.stringify(result.rounds));
  assert.equal(result.rounds[0].status, 'resource_limit', JSON.stringify(result));
  assert.ok(
    result.diagnostics.some((d) => /64 MiB/.test(d.message)),
    `a diagnostic names the 64 MiB limit: ${JSON.stringify(result.diagnostics)}`,
  );
});
