import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot, runCli } from '../helpers/cli';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));

test('chorus --help lists usage and exits 0', async () => {
  const r = await runCli(['--help']);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /Usage: chorus/);
});

test('chorus --version prints the package version', async () => {
  const r = await runCli(['--version']);
  assert.equal(r.code, 0);
  assert.equal(r.stdout.trim(), pkg.version);
});

test('an unknown command or option is a usage error with exit 2', async () => {
  const r1 = await runCli(['frobnicate']);
  assert.equal(r1.code, 2);
  assert.match(r1.stderr, /frobnicate|unknown|too many/i);
  const r2 = await runCli(['--no-such-option']);
  assert.equal(r2.code, 2);
  assert.match(r2.stderr, /unknown option/i);
});

test('the manifest declares the generate command, activation and the CLI bin', () => {
  const cmd = pkg.contributes.commands.find((c: { command: string }) => c.command === 'chorus.generate');
  assert.ok(cmd, 'chorus.generate is contributed');
  assert.equal(cmd.title, 'Generate high-coverage stimulus');
  assert.equal(cmd.category, 'CHORUS');
  assert.deepEqual(pkg.bin, { chorus: 'dist/cli.js' });
  assert.ok(pkg.activationEvents.includes('onLanguage:verilog'));
  assert.ok(pkg.activationEvents.includes('onLanguage:systemverilog'));
  assert.equal(pkg.engines.vscode, '^1.100.0');
  assert.equal(pkg.dependencies['node-llama-cpp'], '3.21.1');
});

test('dist/cli.js starts with a shebang', () => {
  assert.match(readFileSync(join(repoRoot, 'dist', 'cli.js'), 'utf8'), /^#!\/usr\/bin\/env node\n/);
});
