/**
 * Patch hunks as the model writes them: `@@`, 1–3 context lines (' '), removed ('-'), added ('+'), 1–3 context lines.
 * Applied by exact context; a hunk that does not apply says why.
 */
export interface PatchHunk {
  pre: string[];
  removed: string[];
  added: string[];
  post: string[];
}

export type PatchParse = { ok: true; hunks: PatchHunk[] } | { ok: false; error: string };

export function parsePatch(text: string): PatchParse {
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  const hunks: PatchHunk[] = [];
  let cur: PatchHunk | null = null;
  let state: 'pre' | 'body' | 'post' = 'pre';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^@@/.test(line)) {
      if (cur) hunks.push(cur);
      cur = { pre: [], removed: [], added: [], post: [] };
      state = 'pre';
      continue;
    }
    if (line.trim() === '' && line.length <= 1) {
      // A blank line inside a hunk is an empty context line (' ') whose space was trimmed, or padding at the end.
      if (!cur) continue;
      if (state === 'pre') cur.pre.push('');
      else if (state === 'body' || state === 'post') {
        state = 'post';
        cur.post.push('');
      }
      continue;
    }
    if (!cur)
      return { ok: false, error: `line ${i + 1}: text before the first '@@': ${JSON.stringify(line.slice(0, 60))}` };
    const prefix = line[0];
    const body = line.slice(1);
    if (prefix === ' ') {
      if (state === 'pre') cur.pre.push(body);
      else {
        state = 'post';
        cur.post.push(body);
      }
    } else if (prefix === '-' || prefix === '+') {
      if (state === 'post') {
        // A change after trailing context starts an implicit new hunk whose pre-context is that trailing context.
        hunks.push(cur);
        cur = { pre: cur.post, removed: [], added: [], post: [] };
      }
      state = 'body';
      (prefix === '-' ? cur.removed : cur.added).push(body);
    } else {
      return {
        ok: false,
        error: `line ${i + 1}: expected ' ', '-', '+' or '@@' at the start, got ${JSON.stringify(line.slice(0, 60))}`,
      };
    }
  }
  if (cur) hunks.push(cur);
  // Trailing blank "context" lines are usually padding.
  for (const h of hunks) while (h.post.length && h.post[h.post.length - 1] === '') h.post.pop();
  const real = hunks.filter((h) => h.removed.length || h.added.length);
  if (!real.length) return { ok: false, error: 'no hunk adds or removes a line' };
  return { ok: true, hunks: real };
}

export interface HunkFailure {
  /** 1-based hunk number. */
  hunk: number;
  reason: string;
}

export interface PatchOutcome {
  content: string;
  applied: number;
  failures: HunkFailure[];
}

function findBlock(lines: string[], block: string[], from: number, loose: boolean): number[] {
  const norm = (s: string) => (loose ? s.trimEnd() : s);
  const hits: number[] = [];
  for (let i = from; i + block.length <= lines.length; i++) {
    let ok = true;
    for (let j = 0; j < block.length; j++) {
      if (norm(lines[i + j]) !== norm(block[j])) {
        ok = false;
        break;
      }
    }
    if (ok) hits.push(i);
  }
  return hits;
}

/** Applies hunks in order. Context must match exactly (trailing whitespace aside). */
export function applyPatch(content: string, hunks: PatchHunk[]): PatchOutcome {
  let lines = content.replace(/\r\n/g, '\n').split('\n');
  const failures: HunkFailure[] = [];
  let applied = 0;
  hunks.forEach((h, idx) => {
    const before = [...h.pre, ...h.removed, ...h.post];
    if (!before.length) {
      failures.push({ hunk: idx + 1, reason: 'the hunk has no context or removed lines to locate it' });
      return;
    }
    let hits = findBlock(lines, before, 0, false);
    if (!hits.length) hits = findBlock(lines, before, 0, true);
    if (!hits.length) {
      const firstMissing = before.find((l) => !lines.some((x) => x.trimEnd() === l.trimEnd()));
      failures.push({
        hunk: idx + 1,
        reason:
          firstMissing !== undefined
            ? `context line not in the testbench: ${JSON.stringify(firstMissing.trim().slice(0, 80))}`
            : 'its context and removed lines are not adjacent in the testbench',
      });
      return;
    }
    if (hits.length > 1) {
      failures.push({
        hunk: idx + 1,
        reason: `its context matches ${hits.length} places; add context lines to make it unique`,
      });
      return;
    }
    const at = hits[0];
    // Context lines stay as the file has them (a loose match may differ in trailing blanks); only the change is the patch's.
    const pre = lines.slice(at, at + h.pre.length);
    const post = lines.slice(at + h.pre.length + h.removed.length, at + before.length);
    lines = [...lines.slice(0, at), ...pre, ...h.added, ...post, ...lines.slice(at + before.length)];
    applied += 1;
  });
  return { content: lines.join('\n'), applied, failures };
}
