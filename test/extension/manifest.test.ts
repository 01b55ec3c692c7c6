/** package.json's contributions agree with the code: commands, settings, trust, views and media. */
import './stub/register';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMAND_IDS } from '../../src/extension/commands';
import { CHAT_VIEW_ID } from '../../src/extension/chatHost';
import { DEFAULT_SETTINGS, NO_DESIGN_SETTINGS } from '../../src/extension/settings';
import { repoRoot } from '../helpers/cli';

interface Manifest {
  main: string;
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  contributes: {
    commands: { command: string; title: string; category: string }[];
    configuration: {
      properties: Record<
        string,
        { scope?: string; description?: string; markdownDescription?: string; default?: unknown; enum?: string[] }
      >;
    };
    views: Record<string, { id: string; type?: string }[]>;
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    languages: { id: string; extensions: string[]; configuration?: string }[];
    colors: { id: string }[];
  };
}

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
const c = pkg.contributes;

test('every command of the command table is contributed in category CHORUS, and only those', () => {
  assert.deepEqual(c.commands.map((x) => x.command).sort(), [...COMMAND_IDS].sort());
  for (const cmd of c.commands) assert.equal(cmd.category, 'CHORUS', cmd.command);
  assert.equal(c.commands.find((x) => x.command === 'chorus.generate')?.title, 'Generate high-coverage stimulus');
});

test('every setting has a description, a scope and a default matching the code', () => {
  const props = c.configuration.properties;
  const keys = Object.keys(props);
  const defaults = { ...DEFAULT_SETTINGS, ...NO_DESIGN_SETTINGS };
  const expected = [...Object.keys(defaults).map((k) => `chorus.${k}`), 'chorus.trace.server'];
  assert.deepEqual(keys.sort(), expected.sort());
  for (const [key, p] of Object.entries(props)) {
    assert.ok(p.description || p.markdownDescription, `${key} has a description`);
    assert.ok(p.scope, `${key} has a scope`);
  }
  for (const [k, v] of Object.entries(defaults))
    assert.deepEqual(props[`chorus.${k}`].default, v, `chorus.${k} default`);
  assert.deepEqual(props['chorus.engine'].enum, ['auto', 'random', 'llm', 'hybrid']);
  assert.deepEqual(props['chorus.gpu'].enum, ['auto', 'cuda', 'vulkan', 'metal', 'cpu']);
});

test('restricted workspaces: limited support, and settings that point at executables are restricted', () => {
  const trust = pkg.capabilities.untrustedWorkspaces;
  assert.equal(trust.supported, 'limited');
  for (const k of ['chorus.model', 'chorus.endpoint', 'chorus.verilatorPath'])
    assert.ok(trust.restrictedConfigurations.includes(k), k);
});

test('views, languages, icons and colours exist', () => {
  assert.ok(c.viewsContainers.activitybar.some((v) => v.id === 'chorus'));
  assert.deepEqual(
    c.views.chorus.map((v) => [v.id, v.type]),
    [[CHAT_VIEW_ID, 'webview']],
  );
  for (const file of [
    'covered.svg',
    'uncovered.svg',
    'partial.svg',
    'proven.svg',
    'waived.svg',
    'chorus.svg',
    'language-configuration.json',
  ]) {
    assert.ok(existsSync(join(repoRoot, 'media', file)), `media/${file}`);
  }
  for (const l of c.languages) assert.ok(existsSync(join(repoRoot, l.configuration ?? '')), `${l.id} configuration`);
  assert.deepEqual(c.languages.map((l) => l.id).sort(), ['systemverilog', 'verilog']);
  assert.deepEqual(c.colors.map((x) => x.id).sort(), [
    'chorus.coveredForeground',
    'chorus.partialForeground',
    'chorus.provenForeground',
    'chorus.uncoveredForeground',
    'chorus.waivedForeground',
  ]);
  assert.ok(pkg.activationEvents.includes('onLanguage:systemverilog'));
  assert.equal(pkg.main, './dist/extension.js');
});

test('.vscodeignore is an allowlist that lets media and the bundles in', () => {
  const lines = readFileSync(join(repoRoot, '.vscodeignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  assert.equal(lines[0], '**', 'everything is excluded first');
  for (const allow of [
    '!dist/extension.js',
    '!dist/server.js',
    '!dist/webview/**',
    '!media/**',
    '!models/manifest.json',
    '!node_modules/**',
  ]) {
    assert.ok(lines.includes(allow), allow);
  }
  assert.ok(!lines.some((l) => /^!(src|test)\b/.test(l)));
});
