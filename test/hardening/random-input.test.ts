// Property-based tests (fast-check): random and mutated input to the coverage reader, the reply parser, the patch
// applier and the DUT analysis never crashes them; they answer with a result or a clear, located ChorusError.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { applyPatch, parsePatch, parseReply } from '../../src/engine';
import { analyzeSources } from '../../src/hdl';
import { ChorusError, type CoveragePoint } from '../../src/protocol';
import {
  buildSimulation,
  findHoles,
  holesFeedback,
  lineCoverage,
  mergePoints,
  parseCoverageDat,
  readCoverageFile,
  runSimulation,
  summarize,
  summarizeByInstance,
  toLcov,
} from '../../src/sim';
import { repoRoot } from '../helpers/cli';
import { limitMs } from '../helpers/time-limits';
import {
  applyEdit,
  example,
  nestedDesign,
  removeScratch,
  scratch,
  simFixture,
  suiteCache,
  textEdit,
  verilatorDepth,
} from './support';

const counter = example('counter');
// The DUT-analysis properties in their child process: they draw inputs for at most FUZZ_SPAN_MS (all 400 took
// 2 s at load average 1 here, 10 s at 15), and one input takes at most one parse budget (2 s on these small
// texts: a text given up on is remembered) plus its analysis, 2.1 s at load 1 (helpers/time-limits.ts).
const FUZZ_SPAN_MS = 20_000;
const FUZZ_MS = FUZZ_SPAN_MS + limitMs(2_100, 1);
let realDat = '';
let work: string;

before(async () => {
  // One real coverage.dat from a tiny simulation (the sim suite's cache makes the build a hit).
  work = scratch();
  const build = await buildSimulation(
    { dutFiles: [counter], testbench: simFixture('tb_counter.sv') },
    { cacheDir: suiteCache },
  );
  assert.equal(build.status, 'ok', JSON.stringify(build.diagnostics));
  const coverageFile = join(work, 'coverage.dat');
  const run = await runSimulation({ binary: build.binary!, coverageFile }, { cacheDir: suiteCache });
  assert.equal(run.coverageWritten, true, run.output);
  realDat = readFileSync(coverageFile, 'utf8');
});
after(removeScratch);

// ---------------------------------------------------------------------------------------------------------------
// Coverage reader

const KINDS = new Set(['line', 'branch', 'toggle', 'user']);

/** The reader answered: points that downstream code can use, or a ChorusError at a line of the named file. */
function checkReader(text: string, source: string): void {
  let points: CoveragePoint[];
  try {
    points = parseCoverageDat(text, [counter], source);
  } catch (err) {
    assert.ok(err instanceof ChorusError, `not a ChorusError: ${String(err)}`);
    assert.equal(err.kind, 'failed');
    assert.equal(err.location?.file, source);
    const line = err.location?.line ?? 0;
    assert.ok(line >= 1 && line <= text.split('\n').length, `error line ${line}`);
    assert.match(err.message, /damaged; run the simulation again/);
    return;
  }
  for (const p of points) {
    assert.equal(p.file, counter);
    assert.ok(Number.isSafeInteger(p.line) && p.line >= 0, `line ${p.line}`);
    assert.ok(Number.isSafeInteger(p.column) && p.column >= 0, `column ${p.column}`);
    assert.ok(Number.isSafeInteger(p.count) && p.count >= 0, `count ${p.count}`);
    assert.ok(KINDS.has(p.kind), p.kind);
  }
  // Everything the engine and the editor do with points must survive what the reader accepted.
  const sources = new Map([[counter, readFileSync(counter, 'utf8')]]);
  summarize(points);
  summarizeByInstance(points);
  holesFeedback(findHoles(points, sources));
  lineCoverage(points);
  toLcov(points);
  mergePoints(points, points);
}

/** One damaged field of one coverage point: its count or a key field set to a value Verilator never writes. */
const fieldEdit = fc.record({
  point: fc.nat(),
  field: fc.constantFrom('count', 'f', 'l', 'n', 'page', 'S', 'h', 'o'),
  value: fc.constantFrom(
    '',
    '-3',
    '0',
    ' 12',
    '1e3',
    '0x1f',
    'abc',
    '99999999999999999999',
    '9'.repeat(400),
    '/etc/passwd',
    'v_line',
    'v_toggle/',
    '3-',
    '5-2,x',
  ),
});
type FieldEdit = typeof fieldEdit extends fc.Arbitrary<infer T> ? T : never;

function applyFieldEdit(text: string, e: FieldEdit): string {
  const lines = text.split('\n');
  const points = lines.map((l, i) => (l.startsWith('C ') ? i : -1)).filter((i) => i >= 0);
  if (!points.length) return text;
  const i = points[e.point % points.length];
  lines[i] =
    e.field === 'count'
      ? lines[i].replace(/\d+$/, e.value)
      : lines[i].replace(new RegExp(`\x01${e.field}\x02[^\x01']*`), `\x01${e.field}\x02${e.value}`);
  return lines.join('\n');
}

test('coverage reader: the real coverage.dat parses (the base of the properties below)', () => {
  const points = parseCoverageDat(realDat, [counter], 'coverage.dat');
  assert.ok(points.length > 20, `${points.length} points`);
  checkReader(realDat, 'coverage.dat');
});

test('coverage reader: random bytes, with or without the header, never crash it', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.uint8Array({ maxLength: 400 }), (header, bytes) => {
      const text = (header ? '# SystemC::Coverage-3\n' : '') + Buffer.from(bytes).toString('latin1');
      checkReader(text, 'random.dat');
    }),
    { numRuns: 300 },
  );
});

test('coverage reader: mutated real coverage.dat text is read or refused with its file and line', () => {
  fc.assert(
    fc.property(fc.array(textEdit, { maxLength: 4 }), fc.array(fieldEdit, { maxLength: 3 }), (edits, fields) => {
      checkReader(fields.reduce(applyFieldEdit, edits.reduce(applyEdit, realDat)), 'mutated.dat');
    }),
    { numRuns: 300 },
  );
});

test('coverage reader: a file cut anywhere is refused naming it, or (cut at a line end) reads a prefix of the points', async () => {
  const full = parseCoverageDat(realDat, [counter], 'coverage.dat');
  const file = join(work, 'cut.dat');
  await fc.assert(
    fc.asyncProperty(fc.integer({ min: 0, max: realDat.length - 1 }), async (cut) => {
      writeFileSync(file, realDat.slice(0, cut));
      let points: CoveragePoint[];
      try {
        points = await readCoverageFile(file, [counter]);
      } catch (err) {
        assert.ok(err instanceof ChorusError && err.kind === 'failed', String(err));
        assert.equal(err.location?.file, file);
        assert.ok(err.message.includes(file), err.message);
        return;
      }
      assert.ok(realDat.slice(0, cut).endsWith('\n'), 'only a cut at a line end reads');
      assert.deepEqual(points, full.slice(0, points.length));
    }),
    { numRuns: 150 },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Reply parser

const recorded = (
  JSON.parse(readFileSync(join(repoRoot, 'test', 'fixtures', 'replay', 'fifo.json'), 'utf8')) as { responses: string[] }
).responses;

/** Pieces a model reply is made of, so random replies hit the parser's branches. */
const replyPieces = [
  '```systemverilog\n',
  '```verilog\n',
  '```diff\n',
  '```\n',
  '```',
  'filename: tb_x.sv\n',
  '**filename:** `tb.sv`\n',
  '<think>',
  '</think>',
  'module tb;\n',
  'endmodule\n',
  '@@\n',
  ' context\n',
  '-removed\n',
  '+added\n',
  'NO_CHANGES',
  '\n',
  '\r\n',
  ' ',
  'initial $finish;\n',
  'prose ',
  '\u0000',
  'é',
  '`',
  '*bad line\n',
];

function checkReply(text: string): void {
  const r = parseReply(text);
  assert.ok(Array.isArray(r.notes));
  switch (r.type) {
    case 'file':
      assert.match(r.code, /\bmodule\b/);
      assert.ok(r.code.endsWith('\n'));
      if (r.filename !== null) assert.doesNotMatch(r.filename, /\s/);
      break;
    case 'patch':
      assert.ok(r.hunks.length > 0);
      for (const h of r.hunks) assert.ok(h.removed.length + h.added.length > 0, 'every hunk changes something');
      break;
    case 'none': {
      assert.ok(r.reason.length > 0);
      const m = /malformed patch: line (\d+)/.exec(r.reason);
      if (m) assert.ok(Number(m[1]) >= 1 && Number(m[1]) <= text.split('\n').length, r.reason);
      break;
    }
    case 'no_changes':
      break;
    default:
      assert.fail(`unknown reply type in ${JSON.stringify(r)}`);
  }
}

test('reply parser: random text and replies assembled from reply pieces never crash it', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ maxLength: 300, unit: 'binary' }),
        fc.array(fc.constantFrom(...replyPieces), { maxLength: 30 }).map((p) => p.join('')),
      ),
      (text) => {
        checkReply(text);
      },
    ),
    { numRuns: 300 },
  );
});

test('reply parser: mutated recorded replies never crash it', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: recorded.length - 1 }),
      fc.array(textEdit, { minLength: 1, maxLength: 4 }),
      (k, edits) => {
        checkReply(edits.reduce(applyEdit, recorded[k]));
      },
    ),
    { numRuns: 300 },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// Patch parser and applier

/** Unified-diff-style hunks from an LCS diff of two line arrays, with up to `context` lines around each change. */
function diffHunks(a: string[], b: string[], context: number): string {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const ops: { t: ' ' | '-' | '+'; s: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ t: ' ', s: a[i++] });
      j++;
    } else if (j < m && (i >= n || lcs[i][j + 1] >= lcs[i + 1][j])) ops.push({ t: '+', s: b[j++] });
    else ops.push({ t: '-', s: a[i++] });
  }
  // Keep changes and the context lines within `context` of one; a gap wider than that starts a new hunk.
  const keep = ops.map(
    (op, k) => op.t !== ' ' || ops.slice(Math.max(0, k - context), k + context + 1).some((o) => o.t !== ' '),
  );
  const out: string[] = [];
  let open = false;
  ops.forEach((op, k) => {
    if (!keep[k]) {
      open = false;
      return;
    }
    if (!open) out.push('@@');
    open = true;
    out.push(`${op.t}${op.s}`);
  });
  return out.join('\n');
}

/** Distinct, non-blank lines without line breaks: a diff's context then locates one place only. */
const uniqueLines = fc.uniqueArray(
  fc.string({ minLength: 1, maxLength: 10 }).filter((s) => s.trim() !== '' && !/[\r\n]/.test(s)),
  { minLength: 2, maxLength: 30 },
);

test('patch: a patch made from a real diff of two line arrays applies and yields the second', () => {
  fc.assert(
    fc.property(
      uniqueLines,
      fc.array(fc.tuple(fc.nat(), fc.nat({ max: 3 }), fc.boolean()), { minLength: 1, maxLength: 5 }),
      fc.integer({ min: 1, max: 3 }),
      (base, changes, context) => {
        // a: a subset of the pool in order; b: a with deletions and insertions of fresh lines from the pool.
        const half = Math.ceil(base.length / 2);
        const a = base.slice(0, half);
        const fresh = base.slice(half);
        const b = [...a];
        for (const [at, len, insert] of changes) {
          const k = at % (b.length + 1);
          if (insert && fresh.length) b.splice(k, 0, ...fresh.splice(0, len + 1));
          else b.splice(k, len);
        }
        fc.pre(a.join('\n') !== b.join('\n'));
        const text = diffHunks(a, b, context);
        const parsed = parsePatch(text);
        assert.ok(parsed.ok, `${parsed.ok ? '' : parsed.error}\n${text}`);
        const outcome = applyPatch(a.join('\n'), parsed.hunks);
        assert.deepEqual(outcome.failures, [], text);
        assert.equal(outcome.content, b.join('\n'), text);
      },
    ),
    { numRuns: 300 },
  );
});

test('reply parser: a real patch, bare or in a diff fence with prose around it, is read as a patch that does the same', () => {
  const prose = fc.string({ maxLength: 40 }).filter((t) => !/[`@]|module|NO_CHANGES|<\/?think>/i.test(t));
  fc.assert(
    fc.property(
      uniqueLines,
      fc.nat(),
      fc.nat({ max: 3 }),
      prose,
      prose,
      fc.boolean(),
      (a, at, len, before, afterText, inFence) => {
        const b = [...a];
        b.splice(at % a.length, len, 'added line');
        fc.pre(a.join('\n') !== b.join('\n'));
        const patch = diffHunks(a, b, 2);
        const reply = inFence ? `${before}\n\`\`\`diff\n${patch}\n\`\`\`\n${afterText}` : patch;
        const r = parseReply(reply);
        assert.ok(r.type === 'patch', `${JSON.stringify(reply)} -> ${JSON.stringify(r)}`);
        // Trailing blanks of the reply may be trimmed; context matches ignoring them, so compare what the patch does.
        const outcome = applyPatch(a.join('\n'), r.hunks);
        assert.deepEqual(outcome.failures, []);
        assert.equal(outcome.content, b.join('\n'));
      },
    ),
    { numRuns: 200 },
  );
});

test('patch: random and mutated patch text is parsed or refused naming a line, and applying never throws', () => {
  const validPatch = '@@\n   rst_n = 0;\n-  push = 0;\n+  push = 1;\n   pop = 0;\n';
  const fifoTb = /```systemverilog\n([\s\S]*?)```/.exec(recorded[0])?.[1] ?? '';
  assert.match(fifoTb, /module tb_fifo/);
  fc.assert(
    fc.property(
      fc.oneof(
        fc.string({ maxLength: 200, unit: 'binary' }),
        fc
          .array(
            fc.constantFrom(
              '@@',
              '@@ -1,3 +1,3 @@',
              ' ctx',
              '-old',
              '+new',
              '',
              ' ',
              '\t',
              '*x',
              '\\ No newline',
              '\r',
            ),
            { maxLength: 20 },
          )
          .map((l) => l.join('\n')),
        fc.array(textEdit, { minLength: 1, maxLength: 3 }).map((edits) => edits.reduce(applyEdit, validPatch)),
      ),
      (text) => {
        const parsed = parsePatch(text);
        if (!parsed.ok) {
          const m = /^line (\d+): /.exec(parsed.error);
          if (m)
            assert.ok(
              Number(m[1]) >= 1 && Number(m[1]) <= text.replace(/\r\n/g, '\n').split('\n').length,
              parsed.error,
            );
          else assert.equal(parsed.error, 'no hunk adds or removes a line');
          return;
        }
        const outcome = applyPatch(fifoTb, parsed.hunks);
        assert.equal(outcome.applied + outcome.failures.length, parsed.hunks.length);
        for (const f of outcome.failures)
          assert.ok(f.hunk >= 1 && f.hunk <= parsed.hunks.length && f.reason.length > 0);
        if (outcome.applied === 0)
          assert.equal(outcome.content, fifoTb.replace(/\r\n/g, '\n'), 'a patch that applies nowhere changes nothing');
      },
    ),
    { numRuns: 300 },
  );
});

// ---------------------------------------------------------------------------------------------------------------
// DUT analysis

test('DUT analysis: random text, token soup and mutated examples (alone or two files) never throw; errors point inside their file', () => {
  // In a child process with a time bound: a parser that never returns fails this test instead of stalling the suite.
  const log = join(work, 'hdl-fuzz.log');
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', join(__dirname, 'hdl-fuzz.ts'), log, String(FUZZ_SPAN_MS)],
    {
      encoding: 'utf8',
      timeout: FUZZ_MS,
      killSignal: 'SIGKILL',
    },
  );
  if (r.signal || r.error) {
    assert.fail(`the analysis never returned for ${readFileSync(log, 'utf8').slice(0, 2000)}`);
  }
  assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
});

// The analysis must answer for any of these, not overflow the JavaScript stack. (How deep a recursion fits depends
// on how warm V8's JIT is, so a fresh process fails earliest: see cli-deep in bad-input.test.ts.)
test('DUT analysis: statements nested as deep as Verilator parses (else-if chains, blocks, ifs, cases) are analysed without a stack overflow', () => {
  const shape = fc.constantFrom(...(Object.keys(verilatorDepth) as (keyof typeof verilatorDepth)[]));
  fc.assert(
    fc.property(
      shape.chain((k) => fc.tuple(fc.constant(k), fc.integer({ min: 1, max: verilatorDepth[k] }))),
      ([k, depth]) => {
        let analysis;
        try {
          analysis = analyzeSources([{ name: `deep_${k}_${depth}.sv`, content: nestedDesign(k, depth) }]);
        } catch (err) {
          assert.fail(
            `analysis of a ${k} nest ${depth} deep threw ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`,
          );
        }
        assert.deepEqual(
          analysis.modules.map((m) => m.name),
          ['deep'],
        );
        assert.deepEqual(analysis.errors, []);
      },
    ),
    { numRuns: 24, examples: [[['begin', verilatorDepth.begin]]] },
  );
});
