// Bundles every output with esbuild. Type checking is separate (`npm run typecheck`).
import * as esbuild from 'esbuild';
import { chmodSync, mkdirSync } from 'node:fs';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

// Native or ESM-only packages stay outside the bundle and ship as dependencies.
// @yowasp/yosys: ESM with a 30 MB WebAssembly module, loaded by the formal engine's worker with import().
const nativeExternals = [
  'node-llama-cpp',
  '@node-llama-cpp/*',
  'tree-sitter',
  'tree-sitter-systemverilog',
  '@yowasp/yosys',
];

const common = {
  bundle: true,
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  legalComments: 'none',
};

const node = { ...common, platform: 'node', target: 'node20', format: 'cjs', external: nativeExternals };

/** @type {esbuild.BuildOptions[]} */
const builds = [
  {
    ...node,
    entryPoints: { extension: 'src/extension/extension.ts' },
    outdir: 'dist',
    external: [...nativeExternals, 'vscode'],
  },
  { ...node, entryPoints: { server: 'src/server/main.ts' }, outdir: 'dist' },
  { ...node, entryPoints: { cli: 'src/cli/main.ts' }, outdir: 'dist', banner: { js: '#!/usr/bin/env node' } },
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'esm',
    entryPoints: { panel: 'src/webview/main.ts' },
    outdir: 'dist/webview',
    loader: { '.css': 'text' },
  },
];

mkdirSync('dist', { recursive: true });
if (watch) {
  for (const b of builds) await (await esbuild.context(b)).watch();
} else {
  await Promise.all(builds.map((b) => esbuild.build(b)));
  chmodSync('dist/cli.js', 0o755);
}
