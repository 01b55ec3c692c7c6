/**
 * An emitted testbench re-simulated on its own, in a folder of its own, with the design's FSMs as the engine
 * measures them: what a user who takes only the testbench gets.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fsmModelsOfFiles } from '../../src/hdl';
import { measureCoverage } from '../../src/sim';
import { silentLogger } from '../../src/protocol';

export async function resimulate(files: string[], top: string, testbench: string, timeoutMs?: number) {
  const dir = mkdtempSync(join(tmpdir(), `chorus-resim-${top}-`));
  const tb = join(dir, `tb_${top}.sv`);
  writeFileSync(tb, testbench);
  return measureCoverage(
    {
      dutFiles: files,
      testbench: tb,
      dutTop: top,
      fsms: await fsmModelsOfFiles(files),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    },
    { logger: silentLogger, workspaceRoot: dir },
  );
}
