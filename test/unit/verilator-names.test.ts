// File names as Verilator writes them, read back exactly: coverage.dat's %-quoting (5.006's sign-extended bytes and
// the plain form), `line directives' SystemVerilog escapes (5.050) and raw names (5.006), and the links that carry
// paths with spaces past Verilator before 5.018.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alignPreprocessed, parseCoverageDat, parseRuntimeOutput } from '../../src/sim';
import { decodeCoverageText } from '../../src/sim/coverage/coverageQuoting';
import { fileNamer } from '../../src/sim/verilator/diagnostics';
import { decodeDirectiveName, parseLineDirective } from '../../src/sim/verilator/lineDirectiveName';
import { linkedFileOf, linkForVerilator, linkTail, needsLink } from '../../src/sim/verilator/pathLinks';

const DUT = '/w/My Projects/ü dir/dü t.sv';

test('coverage.dat quoting: sign-extended bytes (5.006 and 5.050 on x86) and plain bytes decode to the same UTF-8', () => {
  assert.equal(decodeCoverageText('/w/%FFFFFFC3%FFFFFFBC dir/d%FFFFFFC3%FFFFFFBC.sv'), '/w/ü dir/dü.sv');
  assert.equal(
    decodeCoverageText('/w/%C3%BC dir/d%c3%bc.sv'),
    '/w/ü dir/dü.sv',
    'where char is unsigned, and lower case',
  );
  // Printable ASCII that Verilator quotes itself: `%`, `"`, and control characters.
  assert.equal(decodeCoverageText('100%25 %22q%22 a%09b'), '100% "q" a\tb');
  assert.equal(decodeCoverageText('日本/%FFFFFFE6%FFFFFF97%FFFFFFA5.sv'), '日本/日.sv', 'raw non-ASCII passes through');
  assert.equal(decodeCoverageText('50% done %G1 %'), '50% done %G1 %', 'a % without hex digits is itself');
  assert.equal(decodeCoverageText('plain/path.sv'), 'plain/path.sv');
});

function datLine(file: string, line: number, count: number): string {
  const fields: [string, string][] = [
    ['f', file],
    ['l', String(line)],
    ['n', '3'],
    ['page', 'v_line/counter'],
    ['o', 'block'],
    ['h', 'TOP.tb.dut'],
  ];
  return `C '${fields.map(([k, v]) => `\x01${k}\x02${v}`).join('')}' ${count}`;
}

test('parseCoverageDat matches a DUT file recorded %-quoted, or as the link a build gave Verilator', () => {
  const quoted = '/w/My Projects/%FFFFFFC3%FFFFFFBC dir/d%FFFFFFC3%FFFFFFBC t.sv';
  const linked = `/cache/tmp/abc/chorus-paths-Xy12Zw/${linkTail(DUT)}`;
  const text = [
    '# SystemC::Coverage-3',
    datLine(quoted, 5, 2),
    datLine(linked.replace('ü', '%FFFFFFC3%FFFFFFBC'), 6, 3),
    datLine('/w/other.sv', 7, 1),
    '',
  ].join('\n');
  const points = parseCoverageDat(text, [DUT], 'coverage.dat');
  assert.deepEqual(
    points.map((p) => [p.file, p.line, p.count]),
    [
      [DUT, 5, 2],
      [DUT, 6, 3],
    ],
  );
});

test('`line directive names: SystemVerilog escapes (5.018+) and raw names (5.006) give the same path', () => {
  assert.equal(decodeDirectiveName('/w/My Projects/\\303\\274 dir/d\\303\\274 t.sv'), DUT);
  assert.equal(decodeDirectiveName(DUT), DUT, 'raw UTF-8 as 5.006 writes it');
  assert.equal(decodeDirectiveName('a\\"b\\\\c\\tq\\x41'), 'a"b\\c\tqA');
  assert.deepEqual(parseLineDirective('`line 16 "/w/My Projects/\\303\\274 dir/x.sv" 2'), {
    line: 16,
    file: '/w/My Projects/ü dir/x.sv',
    level: 2,
  });
  assert.equal(parseLineDirective('  assign a = b;'), undefined);
});

test('alignPreprocessed follows escaped names and links back to the file', () => {
  const text = [
    '`line 1 "/w/My Projects/\\303\\274 dir/d\\303\\274 t.sv" 1',
    'module m;',
    '`line 3 "/w/inc.svh" 1',
    'wire hidden;',
    '`line 3 "/w/My Projects/\\303\\274 dir/d\\303\\274 t.sv" 2',
    'wire x;',
    'endmodule',
    '',
  ].join('\n');
  assert.equal(alignPreprocessed(text, DUT, '/w'), 'module m;\n\nwire x;\nendmodule');
  const viaLink = text.replaceAll('/w/My Projects/\\303\\274 dir/d\\303\\274 t.sv', '/tmp/chorus-paths-a/0123/d_t.sv');
  assert.equal(
    alignPreprocessed(viaLink, DUT, '/w', (p) => (p === '/tmp/chorus-paths-a/0123/d_t.sv' ? DUT : p)),
    'module m;\n\nwire x;\nendmodule',
  );
});

test('linkForVerilator: only paths with whitespace are linked, and what Verilator prints maps back', async () => {
  const base = mkdtempSync(join(tmpdir(), 'chorus-names-'));
  try {
    const dir = join(base, 'My Projects', 'ü dir');
    const inc = join(base, 'inc dir');
    mkdirSync(dir, { recursive: true });
    mkdirSync(inc);
    const dut = join(dir, 'dü t.sv');
    const plain = join(base, 'plain.sv');
    writeFileSync(dut, 'module m; endmodule\n');
    writeFileSync(plain, 'module p; endmodule\n');
    writeFileSync(join(inc, 'defs.svh'), '`define W 8\n');
    const mdir = join(base, 'obj dir');
    const links = await linkForVerilator(['--Mdir', mdir, `-I${inc}`, plain, dut, '-DX=1']);
    try {
      const [, mdirArg, incArg, plainArg, dutArg, define] = links.args;
      assert.equal(mdirArg, mdir, 'an output folder is never linked');
      assert.equal(plainArg, plain);
      assert.equal(define, '-DX=1');
      assert.ok(!needsLink(dutArg) && !needsLink(incArg), `${dutArg} ${incArg}`);
      assert.match(dutArg, /\/chorus-paths-[^/]+\/[0-9a-f]{16}\/dü_t\.sv$/);
      assert.equal(readlinkSync(dutArg), dut);
      assert.equal(links.real(dutArg), dut);
      assert.equal(
        links.real(`${incArg.slice(2)}/defs.svh`),
        join(inc, 'defs.svh'),
        'a file found through a linked include folder',
      );
      assert.equal(links.realText(`%Warning: ${dutArg}:3:1: x`), `%Warning: ${dut}:3:1: x`);
      // Readers that know only the real paths (coverage.dat of a cached simulator, runtime messages).
      assert.equal(linkedFileOf([dut])(dutArg), dut);
      assert.equal(linkedFileOf([plain])(dutArg), undefined);
      const name = fileNamer([{ given: dut, display: 'dü t.sv' }]);
      assert.equal(name(dutArg), 'dü t.sv');
      const runtime = parseRuntimeOutput('[20] %Error: dü_t.sv:3: Assertion failed in TOP.m: boom\n', name, dut);
      assert.equal(runtime[0]?.file, 'dü t.sv', 'the simulator names a file by its link base name');
    } finally {
      await links.dispose();
    }
    assert.ok(!existsSync(links.args[4]), 'the links are removed');
    const none = await linkForVerilator([plain, '-I/usr/include']);
    assert.deepEqual(none.args, [plain, '-I/usr/include']);
    assert.equal(none.root, undefined);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
});
