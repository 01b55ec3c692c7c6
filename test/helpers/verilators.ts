/**
 * The Verilators the suites run on: the system one, and Verilator 5.050 when the prebuilt tarball is in
 * ../shared/tools (its README has its sha256). The tarball is unpacked once into the cache folder, atomically
 * (a temporary folder renamed into place), and reused while it is there.
 *
 * scripts/test.mjs runs the simulation-layer files once more on each extra Verilator, with CHORUS_VERILATOR
 * (the product's own default Verilator, src/sim/verilator/verilator.ts) set to it and CHORUS_TEST_VERILATOR to its name.
 * `node --import tsx test/helpers/verilators.ts` prints the list as JSON for scripts/test.mjs.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cacheRoot } from '../../src/sim/cache/cacheDir';
import { repoRoot } from './cli';

export interface TestVerilator {
  /** 'system', or the version of a prebuilt one such as '5.050'. */
  name: string;
  /** Executable: a name on PATH or an absolute path. */
  path: string;
}

export const sharedTools = join(repoRoot, '..', 'shared', 'tools');
const TARBALL = /^verilator-(\d+\.\d+)-.*\.tar\.gz$/;

/** The Verilator this test process runs on: the name scripts/test.mjs selected, else the system one. */
export function currentVerilator(): TestVerilator {
  return { name: process.env.CHORUS_TEST_VERILATOR || 'system', path: process.env.CHORUS_VERILATOR || 'verilator' };
}

/** Every Verilator to test: the system one first, then each prebuilt tarball in ../shared/tools (unpacked on first use). */
export function testVerilators(tools = sharedTools): TestVerilator[] {
  const list: TestVerilator[] = [{ name: 'system', path: 'verilator' }];
  if (!existsSync(tools)) return list;
  for (const file of readdirSync(tools).sort()) {
    const m = TARBALL.exec(file);
    if (m) list.push({ name: m[1], path: join(unpackVerilator(join(tools, file), m[1]), 'bin', 'verilator') });
  }
  return list;
}

/** The sha256 the tools README gives for `file` (the first 64-hex-digit sha256 after its `## <file>` heading). */
export function expectedSha256(readme: string, file: string): string | undefined {
  const section = readme.split(/^## /m).find((s) => s.startsWith(file));
  return section ? /sha256\s+([0-9a-f]{64})/.exec(section)?.[1] : undefined;
}

/**
 * The unpacked `verilator-<version>` folder of `tarball`, under <cache>/test-tools/<sha256 prefix>/. Checked
 * against the README's sha256 before unpacking; a concurrent unpack that wins the rename is used as is.
 */
export function unpackVerilator(tarball: string, version: string, cacheDir = cacheRoot()): string {
  const data = readFileSync(tarball);
  const actual = createHash('sha256').update(data).digest('hex');
  const readmePath = join(tarball, '..', 'README.md');
  const expected = existsSync(readmePath)
    ? expectedSha256(readFileSync(readmePath, 'utf8'), tarball.split('/').pop() ?? '')
    : undefined;
  if (!expected)
    throw new Error(`${readmePath} gives no sha256 for ${tarball}: add it there before testing with this Verilator.`);
  if (actual !== expected)
    throw new Error(`${tarball} has sha256 ${actual}, but ${readmePath} says ${expected}: fetch the tarball again.`);
  const home = join(cacheDir, 'test-tools', actual.slice(0, 16));
  const folder = join(home, `verilator-${version}`);
  if (existsSync(join(folder, 'bin', 'verilator'))) return folder;
  mkdirSync(home, { recursive: true });
  const staging = join(home, `.unpack-${randomBytes(4).toString('hex')}`);
  mkdirSync(staging);
  try {
    const tar = spawnSync('tar', ['-C', staging, '-xzf', tarball], { encoding: 'utf8', timeout: 300_000 });
    if (tar.status !== 0)
      throw new Error(`tar could not unpack ${tarball}: ${tar.stderr || tar.error?.message || `exit ${tar.status}`}`);
    const inner = join(staging, `verilator-${version}`);
    if (!existsSync(join(inner, 'bin', 'verilator')))
      throw new Error(`${tarball} has no verilator-${version}/bin/verilator inside.`);
    try {
      renameSync(inner, folder);
    } catch (err) {
      // Another test process unpacked it first: theirs is complete (it appeared by rename).
      if (!existsSync(join(folder, 'bin', 'verilator'))) throw err;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return folder;
}

if (require.main === module) {
  process.stdout.write(`${JSON.stringify(testVerilators())}\n`);
}
