/** The real product under test: its VSIX built by `npm run package`, and its manifest's ids and command titles. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './install';

interface Manifest {
  name: string;
  publisher: string;
  scripts?: Record<string, string>;
  contributes?: { commands?: { command: string; title: string; category?: string }[] };
}

function manifest(): Manifest {
  return JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
}

/** `publisher.name`, as VS Code names the extension (webview frames carry it as `extensionId=`). */
export function productExtensionId(): string {
  const m = manifest();
  return `${m.publisher}.${m.name}`;
}

/** The palette title of a contributed command (`Category: Title`), from package.json `contributes.commands`. */
export function commandTitle(id: string): string {
  const c = manifest().contributes?.commands?.find((x) => x.command === id);
  if (!c) throw new Error(`package.json contributes no command ${id}: the product test drives the palette by its title.`);
  return c.category ? `${c.category}: ${c.title}` : c.title;
}

const PACKAGE_TIMEOUT_MS = 10 * 60_000;

function vsixFilesSince(since: number): string[] {
  const out: string[] = [];
  for (const dir of [repoRoot, join(repoRoot, 'dist'), join(repoRoot, 'artifacts')]) {
    if (!existsSync(dir)) continue;
    for (const e of readdirSync(dir)) {
      const p = join(dir, e);
      if (e.endsWith('.vsix') && statSync(p).mtimeMs >= since) out.push(p);
    }
  }
  return out.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

let cached: Promise<string> | undefined;
let outDir: string | undefined;

/**
 * Runs `npm run package -- --out <temporary folder>/<name>.vsix` (scripts/package.mjs) and returns the VSIX: that
 * file, else the last `.vsix` path the script printed, else the newest `.vsix` written during the run in the
 * repository root, dist/ or artifacts/. Once per test process.
 */
export function buildProductVsix(): Promise<string> {
  cached ??= new Promise<string>((resolve, reject) => {
    if (!manifest().scripts?.package) {
      reject(new Error('package.json has no "package" script: `npm run package` (issue 9) must build the VSIX the end-to-end test installs.'));
      return;
    }
    const started = Date.now() - 1000;
    outDir = mkdtempSync(join(tmpdir(), 'chorus-e2e-vsix-'));
    const out = join(outDir, `${manifest().name}.vsix`);
    const child = spawn('npm', ['run', 'package', '--', '--out', out], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), PACKAGE_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, sig) => {
      clearTimeout(timer);
      if (code !== 0) {
        reject(new Error(`\`npm run package\` failed (exit ${code ?? sig}):\n${output.trim().split('\n').slice(-30).join('\n')}`));
        return;
      }
      const printed = [...output.matchAll(/(\/[^\s'"`]+\.vsix)\b/g)].map((m) => m[1]).filter((p) => existsSync(p));
      const vsix = existsSync(out) ? out : (printed.pop() ?? vsixFilesSince(started)[0]);
      if (vsix) resolve(vsix);
      else reject(new Error(`\`npm run package\` succeeded but wrote no .vsix that the test can find (it said:\n${output.trim().slice(-2000)})`));
    });
  });
  return cached;
}

/** Removes the temporary folder the VSIX was written to (call from `after`). */
export function removeProductVsix(): void {
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  outDir = undefined;
  cached = undefined;
}
