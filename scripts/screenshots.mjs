// Refreshes the README pictures from the real product: runs the end-to-end product test (test/e2e/product.test.ts)
// with CHORUS_E2E_README_DIR set, so its steps save the named pictures (the gutter with holes, the chat panel
// after a run, the chat panel mid-run), and copies them into docs/images/ only when the whole test passed.
//
//   node scripts/screenshots.mjs
//
// Needs what `npm test` needs for the e2e suite (scripts/e2e-install.mjs installs it when missing).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs', 'images');
const EXPECTED = ['gutter-holes.png', 'chat-panel.png', 'chat-mid-run.png'];

const install = spawnSync(process.execPath, [join(root, 'scripts', 'e2e-install.mjs')], {
  cwd: root,
  stdio: ['ignore', 'ignore', 'inherit'],
});
if (install.status !== 0) process.exit(install.status ?? 1);

const staging = mkdtempSync(join(tmpdir(), 'chorus-screenshots-'));
try {
  const test = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-reporter=spec', join('test', 'e2e', 'product.test.ts')],
    { cwd: root, stdio: 'inherit', env: { ...process.env, CHORUS_E2E_README_DIR: staging } },
  );
  if (test.status !== 0) {
    console.error(
      `screenshots: the product test failed (exit ${test.status ?? test.signal}); docs/images/ is unchanged.`,
    );
    process.exit(1);
  }
  const taken = readdirSync(staging);
  const missing = EXPECTED.filter((f) => !taken.includes(f));
  if (missing.length) {
    console.error(`screenshots: the test passed but did not save ${missing.join(', ')}; docs/images/ is unchanged.`);
    process.exit(1);
  }
  mkdirSync(target, { recursive: true });
  for (const f of taken) copyFileSync(join(staging, f), join(target, f));
  console.log(`screenshots: refreshed ${taken.map((f) => `docs/images/${f}`).join(', ')}`);
} finally {
  rmSync(staging, { recursive: true, force: true });
}
