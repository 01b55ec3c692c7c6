// The jail around untrusted simulators, with real processes: the environment is scrubbed, limits are applied
// and enforced (CPU, file size, memory), bubblewrap (where it works here) keeps writes inside the work folder,
// hides /tmp and homes, cuts the network, and killing the process group leaves nothing behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapAvailable, jailCommand, scrubbedEnv, type JailOptions, type JailSpec } from '../../src/sim/sandbox';
import { limitMs } from '../helpers/time-limits';
import { commandOf, descendants, waitFor } from '../helpers/procs';

let root: string;
let work: string;
let outside: string;

before(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'chorus-sandbox-jail-')));
  work = join(root, 'work');
  outside = join(root, 'outside');
  mkdirSync(work);
  mkdirSync(outside);
});
after(() => rmSync(root, { recursive: true, force: true }));

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The safety net fired: the jail's own limits did not stop the process. */
  guardFired: boolean;
}

/**
 * The safety net for one jailed program, should its own limits fail to stop it. Measured: the longest, a
 * CPU-bound program killed by its 1 s CPU limit, took 1.4 s at load average 5.9 (`nice -n 10 node --import tsx
 * --test test/sim/sandbox-jail.test.ts`, whole test 1.44 s).
 */
const GUARD_MS = limitMs(1_450, 5.9);

/** Spawns a jail spec as its own process group, as the simulator runner does. */
function run(spec: JailSpec, guardMs = GUARD_MS): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(spec.command, spec.args, {
      cwd: work,
      env: spec.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let guardFired = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const guard = setTimeout(() => {
      guardFired = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, guardMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, stdout, stderr, guardFired });
    });
  });
}

const sh = (script: string, opts: Partial<JailOptions> = {}): JailSpec =>
  jailCommand('sh', ['-c', script], { workDir: work, ...opts });

/** Killed by `sig`: directly, through sh (128+n) or through bwrap, which exits 128+n for its child. */
function killedBy(r: Ran, sig: NodeJS.Signals, num: number): boolean {
  return r.signal === sig || r.signal === 'SIGKILL' || r.code === 128 + num || r.code === 128 + 9;
}

test('scrubbedEnv keeps PATH and locale, points HOME at a temporary folder and drops every secret', () => {
  const secrets = [
    'CHORUS_API_KEY',
    'OPENAI_API_KEY',
    'GITHUB_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'HF_TOKEN',
    'SSH_AUTH_SOCK',
    'NPM_TOKEN',
  ];
  const saved = secrets.map((k) => process.env[k]);
  try {
    for (const k of secrets) process.env[k] = `secret-${k}`;
    const env = scrubbedEnv({ EXTRA: '1' });
    for (const k of secrets) assert.equal(env[k], undefined, k);
    assert.equal(env.PATH, process.env.PATH);
    assert.equal(env.HOME, tmpdir());
    assert.equal(env.EXTRA, '1');
    assert.ok(!Object.values(env).some((v) => v?.startsWith('secret-')));
  } finally {
    secrets.forEach((k, i) => {
      if (saved[i] === undefined) delete process.env[k];
      else process.env[k] = saved[i];
    });
  }
});

test('a jailed process sees the scrubbed environment only, with HOME and TMPDIR in its work folder', async () => {
  process.env.CHORUS_API_KEY = 'secret-in-parent';
  try {
    const r = await run(sh('env'));
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /secret-in-parent|CHORUS_API_KEY/);
    assert.match(r.stdout, new RegExp(`^HOME=${work}$`, 'm'));
    assert.match(r.stdout, new RegExp(`^TMPDIR=${work}$`, 'm'));
  } finally {
    delete process.env.CHORUS_API_KEY;
  }
});

test('jailCommand with bwrap: no network, dies with its parent, read-only root, only the work folder writable', () => {
  const spec = jailCommand('/bin/true', ['x'], {
    workDir: work,
    useBwrap: true,
    readOnly: [outside],
    limits: { cpuSeconds: 3 },
  });
  assert.equal(spec.command, 'bwrap');
  const a = spec.args.join(' ');
  for (const flag of [
    '--ro-bind / /',
    '--unshare-all',
    '--die-with-parent',
    `--bind ${work} ${work}`,
    `--ro-bind ${outside} ${outside}`,
    '--tmpfs /tmp',
  ]) {
    assert.ok(a.includes(flag), `${flag} in ${a}`);
  }
  assert.ok(!a.includes('--share-net'));
  // The jailed tree stays in the tool's process group, where a cancel, a timeout and the orphan guard kill it.
  assert.ok(!a.includes('--new-session'), a);
  assert.ok(a.endsWith('-- prlimit --core=0 --cpu=3:4 -- /bin/true x') || a.endsWith('exec "$0" "$@" /bin/true x'), a);
  assert.ok(
    jailCommand('/bin/true', [], { workDir: work, useBwrap: true, network: true }).args.includes('--share-net'),
  );
  const plain = jailCommand('/bin/true', [], { workDir: work, useBwrap: false });
  assert.deepEqual([plain.command, plain.args], ['/bin/true', []]);
});

test('a jailed program has no terminal to push keystrokes into: no controlling terminal, no host terminal device', async () => {
  const r = await run(
    sh(
      'if (: </dev/tty) 2>/dev/null; then echo controlling; else echo none; fi; ls /dev/pts 2>/dev/null | grep -v ptmx | wc -l',
    ),
  );
  const [controlling, hostTerminals] = r.stdout.trim().split('\n');
  assert.equal(controlling, 'none', r.stderr);
  if (bwrapAvailable()) assert.equal(hostTerminals?.trim(), '0', "bubblewrap's /dev shows no host terminal");
});

/** The process group of `pid`, from /proc (field 5 of its stat line, after the command in parentheses). */
function groupOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return undefined;
  }
}

test("every process of a jailed tool stays in the tool's process group, so a kill of the group ends the sandbox", async () => {
  const spec = sh('sleep 30');
  const child = spawn(spec.command, spec.args, { cwd: work, env: spec.env, detached: true, stdio: 'ignore' });
  try {
    const leader = child.pid!;
    const started = await waitFor(() => descendants(leader).some((p) => /\bsleep 30\b/.test(commandOf(p))), 20_000, 20);
    assert.ok(started, 'the jailed sleep never started');
    const tree = descendants(leader);
    const outside = tree.filter((p) => groupOf(p) !== undefined && groupOf(p) !== leader);
    assert.deepEqual(
      outside.map((p) => `${p} ${commandOf(p)}`),
      [],
      `processes outside the tool's group ${leader}`,
    );
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

test('bwrapAvailable is decided once by a trial run, and jailCommand follows it by default', async () => {
  const first = bwrapAvailable();
  assert.equal(bwrapAvailable(), first);
  assert.equal(jailCommand('/bin/true', [], { workDir: work }).command === 'bwrap', first);
  // Whatever was decided, the default jail runs programs.
  const r = await run(sh('echo ran'));
  assert.equal(r.stdout.trim(), 'ran', r.stderr);
});

test('under the jail a program writes its work folder but nothing outside it (bwrap), or bwrap is reported unusable', async () => {
  const victim = join(outside, 'owned');
  const etc = '/etc/chorus-sandbox-test';
  const r = await run(sh(`echo in > inside; echo out > ${victim}; echo etc > ${etc}; echo done`));
  assert.equal(readFileSync(join(work, 'inside'), 'utf8'), 'in\n');
  if (bwrapAvailable()) {
    assert.equal(existsSync(victim), false, 'a write outside the work folder got through');
    assert.equal(existsSync(etc), false);
    assert.match(r.stderr, /Read-only file system|No such file or directory/);
  } else {
    // No bubblewrap: the fallback is limits only, and the spec says so.
    assert.notEqual(jailCommand('/bin/true', [], { workDir: work }).command, 'bwrap');
    rmSync(victim, { force: true });
    rmSync(etc, { force: true });
  }
  assert.match(r.stdout, /done/);
});

test('bwrap hides /tmp and homes (but shows readOnly paths read-only) and cuts the network', async () => {
  writeFileSync(join(outside, 'secret.txt'), 'top secret');
  const probe = `cat ${join(outside, 'secret.txt')} 2>/dev/null || echo hidden; echo x > ${join(outside, 'w')} 2>/dev/null || echo readonly; cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' ' | sort | tr '\\n' ,`;
  const hidden = await run(sh(probe));
  const shown = await run(sh(probe, { readOnly: [outside] }));
  if (bwrapAvailable()) {
    assert.match(hidden.stdout, /^hidden\n/);
    assert.match(shown.stdout, /^top secret/);
    assert.match(shown.stdout, /readonly/);
    assert.equal(existsSync(join(outside, 'w')), false);
    assert.match(hidden.stdout, /\nlo,$/, 'only the loopback interface inside');
  } else {
    // Without bwrap nothing is hidden; the check is that the fallback still runs the program.
    assert.match(hidden.stdout, /^top secret/);
  }
});

test("the simulator's view ('runtime') shows /usr, the libraries and the given paths, nothing else of the machine", async () => {
  assert.ok(bwrapAvailable(), 'bubblewrap must run here (npm test installs the Debian package bubblewrap)');
  writeFileSync(join(outside, 'design.hex'), '01');
  const probe = `cat ${join(outside, 'design.hex')}; for f in /etc/passwd /etc/hostname /var /opt /srv /root; do [ -e $f ] && echo "seen $f"; done; echo done`;
  const r = await run(sh(probe, { view: 'runtime', readOnly: [outside] }));
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '01done\n', 'the given path is readable; /etc, /var, /opt, /srv and homes are not there');
});

for (const limiter of ['prlimit', 'shell'] as const) {
  test(`limits are applied (${limiter}): /proc/self/limits shows CPU, address space, file size and processes`, async () => {
    const r = await run(
      jailCommand('cat', ['/proc/self/limits'], {
        workDir: work,
        limiter,
        limits: { cpuSeconds: 7, memoryBytes: 512 * 1024 * 1024, fileSizeBytes: 1024 * 1024, processes: 77 },
      }),
    );
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Max cpu time\s+7\s/);
    assert.match(r.stdout, /Max address space\s+536870912\s/);
    assert.match(r.stdout, /Max file size\s+1048576\s/);
    assert.match(r.stdout, /Max processes\s+77\s/);
    assert.match(r.stdout, /Max core file size\s+0\s/);
  });

  // The shell limiter runs inside bwrap where it works, so the limit is shown to hold there too.
  test(`a CPU-bound program is killed by the CPU limit (${limiter}${limiter === 'shell' ? ', in the default jail' : ''})`, async () => {
    const r = await run(
      sh('while :; do :; done', {
        limiter,
        useBwrap: limiter === 'shell' ? undefined : false,
        limits: { cpuSeconds: 1 },
      }),
    );
    assert.equal(r.guardFired, false, 'the CPU limit did not stop the loop');
    assert.ok(killedBy(r, 'SIGXCPU', 24), JSON.stringify(r));
  });

  test(`a program writing past the file-size limit is stopped at it (${limiter})`, async () => {
    const big = join(work, `big-${limiter}`);
    const r = await run(
      sh(`exec head -c 100000 /dev/zero > ${big}`, { limiter, useBwrap: false, limits: { fileSizeBytes: 4096 } }),
    );
    assert.ok(killedBy(r, 'SIGXFSZ', 25), JSON.stringify(r));
    assert.equal(statSync(big).size, 4096);
  });
}

test('the memory limit makes a large allocation fail; without it the same allocation succeeds', async () => {
  const alloc = ['-e', 'my $x = "a" x (200*1024*1024); print length($x), "\\n";'];
  const free = await run(jailCommand('perl', alloc, { workDir: work, useBwrap: false }));
  assert.equal(free.stdout.trim(), String(200 * 1024 * 1024), free.stderr);
  const limited = await run(
    jailCommand('perl', alloc, { workDir: work, useBwrap: false, limits: { memoryBytes: 100 * 1024 * 1024 } }),
  );
  assert.notEqual(limited.code, 0);
  assert.equal(limited.stdout.trim(), '');
});

/** Pids whose command line is exactly `sleep <token>`. */
function sleepers(token: string): number[] {
  const pids: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readFileSync(`/proc/${e}/cmdline`, 'utf8') === `sleep\0${token}\0`) pids.push(Number(e));
    } catch {
      // Gone meanwhile.
    }
  }
  return pids;
}

/** Processes starting or going away: the whole test below, both waits included, took 0.12 s at load average 5.9. */
const SETTLE_MS = limitMs(120, 5.9);

/** Polls `cond` every 50 ms until it holds or `withinMs` has passed. */
async function until(cond: () => boolean, withinMs = SETTLE_MS): Promise<boolean> {
  const end = Date.now() + withinMs;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

for (const useBwrap of [true, false]) {
  test(`killing the process group leaves no jailed process behind (${useBwrap ? 'bwrap when available' : 'limits only'})`, async () => {
    const token = String(4_000_000 + Math.floor(Math.random() * 1_000_000));
    const spec = sh(`sleep ${token} & sleep ${token} & wait`, {
      useBwrap: useBwrap && bwrapAvailable(),
      limits: { cpuSeconds: 30 },
    });
    const child = spawn(spec.command, spec.args, { cwd: work, env: spec.env, detached: true, stdio: 'ignore' });
    const closed = new Promise((r) => child.on('close', r));
    try {
      assert.ok(await until(() => sleepers(token).length === 2), 'both sleepers started');
      process.kill(-(child.pid as number), 'SIGKILL');
      await closed;
      assert.ok(await until(() => sleepers(token).length === 0), `left behind: ${sleepers(token).join(' ')}`);
    } finally {
      // Only our own leftovers, by pid, should the assertion above have failed.
      for (const pid of sleepers(token)) process.kill(pid, 'SIGKILL');
    }
  });
}
