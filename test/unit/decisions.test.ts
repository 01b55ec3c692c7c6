// Each run decision is made in one function and only called elsewhere: engine and model need (`decideEngine`,
// through `planRun` for a run), workspace trust (`WorkspaceTrust.admit`, for every request on the language server).
// Read from the adapters' sources, so a new call site that decides again fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/cli';

const read = (path: string): string => readFileSync(join(repoRoot, path), 'utf8');

function sources(dir: string): string[] {
  return readdirSync(join(repoRoot, dir)).flatMap((e) => {
    const p = join(dir, e);
    return statSync(join(repoRoot, p)).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

test('engine and model need: every adapter that starts runs asks the engine (planRun or decideEngine)', () => {
  const starters: Record<string, RegExp> = {
    'src/cli/commands/generate.ts': /\bplanRun\(/,
    'src/cli/commands/bench.ts': /\bdecideEngine\(/,
    'src/server/runs.ts': /\bplanRun\(/,
    'src/server/models.ts': /\bdecideEngine\(/,
    'src/engine/plan.ts': /\bdecideEngine\(/,
  };
  for (const [file, call] of Object.entries(starters)) assert.match(read(file), call, `${file} asks the engine`);
  // Nobody else reads a provider's model to decide whether a run may start, or picks `auto` by hand.
  const deciding = [...sources('src'), ...sources('test')].filter((f) => {
    if (f === 'src/engine/models.ts' || f === 'test/unit/decisions.test.ts') return false;
    const text = read(f);
    return /\.configured\(\)\s*\?\s*'llm'/.test(text) || /requested\s*!==\s*'auto'/.test(text);
  });
  assert.deepEqual(deciding, [], 'the engine choice is made only in src/engine/models.ts');
  // The editor shows the engine's answer: its pre-flight takes the server's modelAvailable.
  assert.match(read('src/extension/runLauncher.ts'), /needsModel\(\w+, this\.deps\.modelAvailable\(\)\)/);
});

test('trust: the language server admits every request in one place, and no handler decides it again', () => {
  assert.match(read('src/server/rpc.ts'), /\.admit\(/, 'the request dispatcher asks WorkspaceTrust');
  // The initialization option only seeds WorkspaceTrust; no handler reads it again.
  const again = sources('src/server').filter(
    (f) =>
      f !== 'src/server/trust.ts' &&
      read(f)
        .split('\n')
        .some((line) => line.includes('workspaceTrusted') && !line.includes('new WorkspaceTrust(')),
  );
  assert.deepEqual(again, [], 'trust is read only by WorkspaceTrust');
});

test('the DUT: a run, a measurement and a proof select it once (selectDut) and pass the selection on', () => {
  // Only the selection (and `chorus inspect`, which reports the analysis itself) analyses a design for its DUT.
  const analysing = sources('src').filter(
    (f) => f !== 'src/engine/designAnalysis.ts' && /\banalyzeDesign\(/.test(read(f)),
  );
  assert.deepEqual(analysing.sort(), ['src/cli/commands/inspect.ts', 'src/engine/plan.ts']);
  // The proof hands its selection to the measurement or the search it starts; a run's context reuses the plan's.
  const prove = read('src/engine/closure/proveHoles.ts');
  assert.match(prove, /selectDut\(/);
  assert.match(prove, /measure\([\s\S]*?,\s*dut,?\s*\)/);
  assert.match(prove, /generateToEnd\([\s\S]*?,\s*dut,?\s*\)/);
  assert.match(read('src/engine/context.ts'), /reuse\s*\?\s*planned/);
  assert.match(read('src/engine/measure.ts'), /selected \?\?/);
});
