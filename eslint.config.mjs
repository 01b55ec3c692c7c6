// The layer rule of docs/ARCHITECTURE: arrows point one way; only src/extension imports vscode.
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { builtinModules } from 'node:module';
import globals from 'globals';

const layers = {
  protocol: [],
  hdl: ['protocol'],
  sim: ['protocol'],
  llm: ['protocol'],
  formal: ['hdl', 'protocol'],
  engine: ['hdl', 'sim', 'llm', 'formal', 'protocol'],
  server: ['engine', 'protocol'],
  // The reward server is an adapter like the language server; `chorus serve` starts it from the CLI.
  serve: ['engine', 'protocol'],
  cli: ['serve', 'engine', 'protocol'],
  extension: ['protocol'],
  webview: ['protocol'],
};
const all = Object.keys(layers);

function layerRules(layer) {
  const forbidden = all.filter((l) => l !== layer && !layers[layer].includes(l));
  const patterns = forbidden.map((l) => ({
    group: ['../', '../../', '../../../'].flatMap((up) => [`${up}${l}`, `${up}${l}/**`]),
    message: `src/${layer} may not import src/${l} (layer rule: ${layer} → ${layers[layer].join(', ') || 'nothing'}).`,
  }));
  const paths = [];
  if (layer !== 'extension') {
    paths.push({ name: 'vscode', message: 'Only src/extension may import vscode.' });
  }
  if (layer === 'webview') {
    for (const m of builtinModules) {
      paths.push({ name: m, message: 'src/webview runs in a browser: no Node built-ins.' });
      paths.push({ name: `node:${m}`, message: 'src/webview runs in a browser: no Node built-ins.' });
    }
  }
  return {
    files: [`src/${layer}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
  };
}

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'test-artifacts/**', 'artifacts/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-console': 'error',
    },
  },
  {
    // Typed rules: a promise is awaited, handled or explicitly let go; a switch over a union names every member
    // (or has a default that says what the others do).
    files: ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() and describe() return promises the runner awaits itself.
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  ...all.map(layerRules),
  {
    // No import cycle anywhere in src: a module that needs a use case above it is in the wrong place.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // Formatting is prettier's (`npm run format`); no lint rule argues with it.
  prettier,
  {
    // Plain JavaScript (the scripts) has no type check behind it: an undefined name fails here, not in CI.
    files: ['**/*.mjs'],
    languageOptions: { globals: globals.node },
    rules: { 'no-undef': 'error' },
  },
  {
    // Tests, scripts and benchmarks print; entry points write through the logger.
    files: ['test/**', 'scripts/**', 'bench/**', '**/*.mjs'],
    rules: { 'no-console': 'off' },
  },
);
