import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as vscode from 'vscode';
import {
  decideWrite,
  hashText,
  markerLine,
  TestbenchWriter,
  testbenchFileName,
  withMarker,
  MARKER_PREFIX,
} from '../../src/extension/testbench';

function memento() {
  const data = new Map<string, unknown>();
  return {
    get: <T>(k: string) => data.get(k) as T | undefined,
    update: async (k: string, v: unknown) => void data.set(k, v),
  };
}

test('the marker goes first, once', () => {
  const t = withMarker('module tb;\nendmodule', 'fifo');
  assert.equal(t, `${markerLine('fifo')}\nmodule tb;\nendmodule\n`);
  assert.equal(withMarker(t, 'fifo'), t, 'idempotent');
  assert.ok(withMarker(t, 'alu').startsWith(`${MARKER_PREFIX} for alu.`));
  assert.equal(testbenchFileName('fifo'), 'tb_fifo.sv');
  assert.equal(testbenchFileName('../x y'), 'tb____x_y.sv');
});

test('overwrite consent: only an unedited file CHORUS wrote is replaced without asking', () => {
  const ours = withMarker('module tb; endmodule', 'fifo');
  const next = withMarker('module tb; initial $finish; endmodule', 'fifo');
  assert.deepEqual(decideWrite(undefined, next, undefined), { action: 'create' });
  assert.deepEqual(decideWrite(next, next, undefined), { action: 'unchanged' });
  assert.deepEqual(decideWrite(ours, next, hashText(ours)), { action: 'overwrite' });
  assert.deepEqual(decideWrite(`${ours}// my edit\n`, next, hashText(ours)), {
    action: 'ask',
    reason: 'has been edited since CHORUS wrote it',
  });
  assert.deepEqual(
    decideWrite(ours, next, undefined),
    { action: 'ask', reason: 'has been edited since CHORUS wrote it' },
    'a marker alone is not proof',
  );
  assert.deepEqual(decideWrite('module my_tb; endmodule', next, hashText('module my_tb; endmodule')), {
    action: 'ask',
    reason: 'was not written by CHORUS',
  });
});

test("the writer creates, replaces its own file, and asks before touching the user's", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chorus-tb-'));
  try {
    const asked: string[] = [];
    let allow = false;
    const w = new TestbenchWriter(vscode.workspace.fs, memento(), async (uri, reason) => {
      asked.push(`${uri.fsPath}: ${reason}`);
      return allow;
    });
    const target = vscode.Uri.file(join(dir, 'tb', 'tb_fifo.sv'));
    assert.equal(await w.write(target, 'module tb; endmodule', 'fifo'), 'created');
    assert.equal(readFileSync(target.fsPath, 'utf8'), withMarker('module tb; endmodule', 'fifo'));
    assert.equal(await w.write(target, 'module tb; endmodule', 'fifo'), 'unchanged');
    assert.equal(await w.write(target, 'module tb; /*2*/ endmodule', 'fifo'), 'overwritten');
    assert.deepEqual(asked, [], 'its own, unedited file: no question');

    writeFileSync(target.fsPath, readFileSync(target.fsPath, 'utf8') + '// user edit\n');
    assert.equal(await w.write(target, 'module tb; /*3*/ endmodule', 'fifo'), 'declined');
    assert.match(readFileSync(target.fsPath, 'utf8'), /user edit/, "declined: the user's edit stays");
    assert.equal(asked.length, 1);
    assert.match(asked[0], /edited since CHORUS wrote it/);

    allow = true;
    assert.equal(await w.write(target, 'module tb; /*3*/ endmodule', 'fifo'), 'overwritten');
    assert.match(readFileSync(target.fsPath, 'utf8'), /\/\*3\*\//);

    const mine = vscode.Uri.file(join(dir, 'tb', 'tb_alu.sv'));
    mkdirSync(join(dir, 'tb'), { recursive: true });
    writeFileSync(mine.fsPath, 'module my_tb; endmodule\n');
    allow = false;
    assert.equal(await w.write(mine, 'module tb; endmodule', 'alu'), 'declined');
    assert.equal(readFileSync(mine.fsPath, 'utf8'), 'module my_tb; endmodule\n');
    assert.match(asked[asked.length - 1], /was not written by CHORUS/);
    assert.deepEqual(
      readdirSync(join(dir, 'tb')).sort(),
      ['tb_alu.sv', 'tb_fifo.sv'],
      'no temporary files left behind',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
