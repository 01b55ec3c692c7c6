import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shortNames } from '../../src/webview/fileNames';

test('the panel names a file by its base name, with folders only where two files share one', () => {
  const name = shortNames(['/w/rtl/a/fifo.sv', '/w/rtl/b/fifo.sv', '/w/rtl/a/mem.sv']);
  assert.equal(name('/w/rtl/a/fifo.sv'), 'a/fifo.sv');
  assert.equal(name('/w/rtl/b/fifo.sv'), 'b/fifo.sv');
  assert.equal(name('/w/rtl/a/mem.sv'), 'mem.sv');
  assert.equal(shortNames(['C:\\w\\rtl\\fifo.sv'])('C:\\w\\rtl\\fifo.sv'), 'fifo.sv', 'Windows paths too');
  assert.equal(shortNames([''])(''), '', 'a diagnostic without a file stays without one');
});
