// No import cycle in src: the lint rule (import-x/no-cycle) enforces it; this test checks the same graph without
// the linter, so a cycle fails the fast suites too and names its modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from '../helpers/cli';

const src = join(repoRoot, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((e) => {
    const p = join(dir, e);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** The src modules a file imports (static, type-only and re-exports alike), resolved as TypeScript does. */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;'"]*?from\s*['"](\.{1,2}\/[^'"]+)['"]/g)].map(
    (m) => m[1],
  );
  return specs.flatMap((spec) => {
    const base = resolve(dirname(file), spec);
    const found = [`${base}.ts`, join(base, 'index.ts')].find((c) => existsSync(c));
    return found ? [found] : [];
  });
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
export function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) ?? 0, idx.get(w) ?? 0));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        on.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc);
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

test('src has no import cycle', () => {
  const graph = new Map(sources(src).map((f) => [f, importsOf(f)]));
  const found = cycles(graph).map((c) => c.map((f) => relative(repoRoot, f)).sort());
  assert.deepEqual(found, [], `import cycles: ${JSON.stringify(found)}`);
});

test('the cycle finder finds a cycle', () => {
  const graph = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a']],
    ['d', ['a']],
  ]);
  assert.deepEqual(
    cycles(graph).map((c) => c.sort()),
    [['a', 'b', 'c']],
  );
});
