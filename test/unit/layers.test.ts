import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { repoRoot } from '../helpers/cli';

// The layer rules on text of files that do not exist: the typed rules (which need each file in the TypeScript
// project) are off here, the rest of the real configuration applies.
const eslint = new ESLint({
  cwd: repoRoot,
  overrideConfig: {
    languageOptions: { parserOptions: { projectService: false } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': 'off',
    },
  },
});

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(repoRoot, file) });
  return result.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

test('only src/extension may import vscode', async () => {
  assert.deepEqual(
    await problems('src/extension/x.ts', "import * as vscode from 'vscode';\nexport const v = vscode;\n"),
    [],
  );
  for (const layer of ['protocol', 'hdl', 'sim', 'llm', 'engine', 'server', 'cli', 'webview']) {
    const msgs = await problems(`src/${layer}/x.ts`, "import * as vscode from 'vscode';\nexport const v = vscode;\n");
    assert.equal(msgs.length, 1, `src/${layer} importing vscode is flagged`);
  }
});

test('lower layers never import higher ones', async () => {
  assert.equal((await problems('src/sim/x.ts', "import { a } from '../engine/a';\nexport const b = a;\n")).length, 1);
  assert.equal((await problems('src/protocol/x.ts', "import { a } from '../hdl/a';\nexport const b = a;\n")).length, 1);
  assert.equal(
    (await problems('src/extension/x.ts', "import { a } from '../engine/a';\nexport const b = a;\n")).length,
    1,
  );
  assert.equal((await problems('src/engine/x.ts', "import { a } from '../sim/a';\nexport const b = a;\n")).length, 0);
  assert.equal(
    (await problems('src/cli/commands/x.ts', "import { a } from '../../engine/a';\nexport const b = a;\n")).length,
    0,
  );
  assert.equal(
    (await problems('src/cli/commands/x.ts', "import { a } from '../../extension/a';\nexport const b = a;\n")).length,
    1,
  );
  // The adapters reach hdl, sim and llm only through the engine.
  for (const lower of ['hdl', 'sim', 'llm']) {
    assert.equal(
      (await problems('src/server/x.ts', `import { a } from '../${lower}';\nexport const b = a;\n`)).length,
      1,
      `server → ${lower}`,
    );
    assert.equal(
      (await problems('src/cli/commands/x.ts', `import { a } from '../../${lower}/a';\nexport const b = a;\n`)).length,
      1,
      `cli → ${lower}`,
    );
  }
  assert.equal((await problems('src/server/x.ts', "import { a } from '../engine';\nexport const b = a;\n")).length, 0);
});

test('src/webview imports no Node built-ins', async () => {
  assert.equal(
    (await problems('src/webview/x.ts', "import { readFileSync } from 'node:fs';\nexport const r = readFileSync;\n"))
      .length,
    1,
  );
  assert.equal(
    (await problems('src/webview/x.ts', "import * as path from 'path';\nexport const p = path;\n")).length,
    1,
  );
});
