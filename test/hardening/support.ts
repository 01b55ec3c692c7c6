// Shared by the hardening tests: scratch folders, the CLI as an observable child, fake tools, and /proc checks.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import fc from 'fast-check';
import { join } from 'node:path';
import { cliPath, repoRoot, type CliResult } from '../helpers/cli';
import { descendants } from '../helpers/procs';

/** The sim suite's build cache: warm by the time this suite runs, so builds cost only their own compile. */
export { suiteCache } from '../sim/simFixtures';

export const example = (name: string): string => join(repoRoot, 'examples', name, `${name}.sv`);
export const simFixture = (name: string): string => join(repoRoot, 'test', 'fixtures', 'sim', name);

const scratchDirs: string[] = [];

/** A fresh folder under the system temporary folder; `removeScratch()` deletes every one made. */
export function scratch(prefix = 'chorus-hardening-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}

export function removeScratch(): void {
  for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** An executable shell script standing in for a tool. */
export function fakeTool(dir: string, name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

export interface RunningCli {
  child: ChildProcess;
  done: Promise<CliResult & { signal: NodeJS.Signals | null }>;
}

/** Starts the built CLI as a child whose pid the test can watch and signal. */
export function startCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): RunningCli {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: opts.cwd ?? repoRoot,
    env: { ...process.env, NO_COLOR: '1', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  const done = new Promise<CliResult & { signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

/** Start time of a process in clock ticks (field 22 of /proc/<pid>/stat), to tell it from a later one with its pid. */
export function startTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] === 'Z' || fields[0] === 'X' ? undefined : fields[19];
  } catch {
    return undefined;
  }
}

/** Every process of a tree seen while it ran, by pid, with its start time and command. */
export class TreeWatcher {
  readonly seen = new Map<number, { start: string; cmd: string }>();
  private timer: NodeJS.Timeout;

  constructor(
    private readonly root: number,
    everyMs = 20,
  ) {
    this.timer = setInterval(() => this.look(), everyMs);
  }

  /** Commands of the live descendants right now (and records them). */
  look(): string[] {
    const cmds: string[] = [];
    for (const pid of descendants(this.root)) {
      const start = startTime(pid);
      if (start === undefined) continue;
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      } catch {
        continue;
      }
      if (!this.seen.has(pid)) this.seen.set(pid, { start, cmd });
      cmds.push(cmd);
    }
    return cmds;
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Processes seen during the run that still live (same pid and start time, not a zombie). */
  survivors(): string[] {
    return [...this.seen].filter(([pid, p]) => startTime(pid) === p.start).map(([pid, p]) => `${pid} ${p.cmd}`);
  }
}

/**
 * Live processes that belong to a run whose temporary folder is `dir`: its path in their command line, working
 * folder or environment (tools get HOME or TMPDIR there; the jailed simulator gets its run folder).
 */
export function processesUsing(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const pid = Number(entry);
    if (startTime(pid) === undefined) continue;
    const read = (what: string): string => {
      try {
        return what === 'cwd' ? readlinkSync(`/proc/${pid}/cwd`) : readFileSync(`/proc/${pid}/${what}`, 'utf8');
      } catch {
        return '';
      }
    };
    const cmd = read('cmdline').replace(/\0/g, ' ');
    if (cmd.includes(dir) || read('cwd').startsWith(dir) || read('environ').includes(dir))
      found.push(`${pid} ${cmd.trim()}`);
  }
  return found;
}

/** Statements nested `depth` deep, in the shapes real RTL nests them: decoder chains, blocks, nested conditions. */
export function nestedDesign(shape: 'elseif' | 'begin' | 'if' | 'case', depth: number): string {
  const body = (() => {
    switch (shape) {
      case 'elseif':
        return [
          '    if (a == 0) y = 0;',
          ...Array.from({ length: depth }, (_, i) => `    else if (a == ${i + 1}) y = ${i % 65536};`),
          '    else y = 1;',
        ];
      case 'begin':
        return [`    ${'begin '.repeat(depth)}y = a;${' end'.repeat(depth)}`];
      case 'if':
        return [`    y = 0;`, `    ${Array.from({ length: depth }, (_, i) => `if (a[${i % 16}])`).join(' ')} y = a;`];
      default:
        return [`    y = 0;`, `    ${'case (a) 0: '.repeat(depth)}y = a;${' endcase'.repeat(depth)}`];
    }
  })();
  return [
    'module deep(input logic [15:0] a, output logic [15:0] y);',
    '  always_comb begin',
    ...body,
    '  end',
    'endmodule',
    '',
  ].join('\n');
}

/** How deep Verilator 5.006 still parses each shape here (deeper exhausts its own parser): designs users can have. */
export const verilatorDepth = { elseif: 1400, begin: 3000, if: 1700, case: 1700 } as const;

/** One edit of a text: a cut, an insertion, a replaced span, a duplicated or dropped line, a flipped character. */
export const textEdit = fc.oneof(
  fc.record({ op: fc.constant('cut' as const), at: fc.nat(), len: fc.nat({ max: 200 }) }),
  fc.record({ op: fc.constant('insert' as const), at: fc.nat(), text: fc.string({ maxLength: 12, unit: 'binary' }) }),
  fc.record({
    op: fc.constant('replace' as const),
    at: fc.nat(),
    len: fc.nat({ max: 20 }),
    text: fc.constantFrom(
      "'",
      ' ',
      '\n',
      '\x01',
      '\x02',
      'C ',
      '-1',
      '99999999999999999999',
      'l\x02',
      'f\x02',
      '#',
      '',
    ),
  }),
  fc.record({ op: fc.constant('dupLine' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('dropLine' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 6 }) }),
);
export type TextEdit = typeof textEdit extends fc.Arbitrary<infer T> ? T : never;

export function applyEdit(text: string, e: TextEdit): string {
  if (!text.length) return text;
  const at = e.at % text.length;
  switch (e.op) {
    case 'cut':
      return text.slice(0, at) + text.slice(at + e.len);
    case 'insert':
      return text.slice(0, at) + e.text + text.slice(at);
    case 'replace':
      return text.slice(0, at) + e.text + text.slice(at + e.len);
    case 'flip':
      return text.slice(0, at) + String.fromCharCode(text.charCodeAt(at) ^ (1 << e.bit)) + text.slice(at + 1);
    default: {
      const lines = text.split('\n');
      const i = e.at % lines.length;
      if (e.op === 'dupLine') lines.splice(i, 0, lines[i]);
      else lines.splice(i, 1);
      return lines.join('\n');
    }
  }
}
