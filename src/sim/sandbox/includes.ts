/**
 * Checks `include directives in the ORIGINAL files before the preprocessor opens anything, so an include of
 * /etc/passwd, /dev/zero or a file outside the workspace is never read. Resolution follows Verilator 5.006:
 * an absolute path as is; a relative one in each -I folder, then the working folder, then the --Mdir folder,
 * each with the suffixes "", ".v", ".sv" (it does not look beside the including file).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { SandboxRule } from './rules';
import { scan } from './scan';

export interface IncludeContext {
  /** Folder Verilator runs in. */
  cwd: string;
  /** -I folders, absolute. */
  includeDirs: string[];
  /** Verilator's --Mdir, also searched. */
  mdir: string;
  /** Real paths under which included files may live. */
  allowedRoots: string[];
}

export interface IncludeViolation {
  file: string;
  line: number;
  column: number;
  rule: SandboxRule;
  message: string;
}

/** Largest source file the include walk reads; a bigger one is left to the preprocessor's own limits. */
const maxSourceBytes = 16 * 1024 * 1024;
const suffixes = ['', '.v', '.sv'];

export function checkIncludes(rootFile: string, ctx: IncludeContext, texts?: Map<string, string>): IncludeViolation[] {
  const violations: IncludeViolation[] = [];
  const seen = new Set<string>();
  const queue = [resolve(rootFile)];
  while (queue.length) {
    const file = queue.shift() as string;
    const real = realOrSelf(file);
    if (seen.has(real)) continue;
    seen.add(real);
    const text = readSource(real);
    if (text === undefined) continue;
    texts?.set(real, text);
    let comments: Array<[number, number]> | undefined;
    // Every `include counts, even one in a comment or string: the preprocessor's idea of those may differ
    // from ours, and rejecting a commented-out include of /etc/passwd costs nothing.
    for (const m of text.matchAll(/`include\b/g)) {
      const offset = m.index ?? 0;
      const name = includeName(text, offset + m[0].length);
      // An operand that is no literal outside comments is computed (`` `define INC(f) `include f ``): unreadable
      // before expansion, so refused; prose in a comment ("the `include above") is not.
      const computed = name === undefined && !inRanges(offset, (comments ??= commentRanges(text, real)));
      const found = computed ? computedIncludeViolation : checkOne(name, ctx);
      if (typeof found === 'string') queue.push(found);
      else if (found) violations.push({ file, ...lineAndColumn(text, offset), ...found });
    }
  }
  return violations;
}

/**
 * The texts of `files` and of every header they include that resolves (the design's own sources: nothing is
 * judged, only read, within the same size bound), keyed by real path.
 */
export function designTexts(files: string[], ctx: IncludeContext): Map<string, string> {
  const texts = new Map<string, string>();
  const queue = files.map((f) => resolve(f));
  while (queue.length) {
    const real = realOrSelf(queue.shift() as string);
    if (texts.has(real)) continue;
    const text = readSource(real);
    if (text === undefined) continue;
    texts.set(real, text);
    for (const m of text.matchAll(/`include\s*"((?:[^"\\\n]|\\.)*)"/g)) {
      const found = resolveInclude(m[1] ?? '', ctx);
      if (found && isRegularFile(found)) queue.push(found);
    }
  }
  return texts;
}

const computedIncludeViolation = {
  rule: 'include-macro' as const,
  message: '`include needs a literal "file" name so the sandbox can check it: write the path out.',
};

function commentRanges(text: string, file: string): Array<[number, number]> {
  return scan(text, file)
    .filter((t) => t.kind === 'comment')
    .map((t) => [t.offset, t.offset + t.text.length + 4] as [number, number]);
}

function inRanges(offset: number, ranges: Array<[number, number]>): boolean {
  return ranges.some(([from, to]) => offset >= from && offset < to);
}

/** A violation, the resolved file to walk next, or undefined (missing: the preprocessor reports it). */
function checkOne(
  name: string | null | undefined,
  ctx: IncludeContext,
): { rule: SandboxRule; message: string } | string | undefined {
  if (name === null) return computedIncludeViolation;
  // Neither a name nor a macro: prose in a comment, or a syntax error the preprocessor reports.
  if (name === undefined) return undefined;
  const found = resolveInclude(name, ctx);
  if (!found) {
    const outside = isAbsolute(name) && !within(resolve(name), ctx.allowedRoots);
    return outside ? { rule: 'include-outside-workspace', message: outsideMessage(name) } : undefined;
  }
  const target = realOrSelf(found);
  if (!within(target, ctx.allowedRoots)) return { rule: 'include-outside-workspace', message: outsideMessage(name) };
  if (!isRegularFile(target)) {
    return {
      rule: 'include-not-file',
      message: `\`include "${name}" is not a regular file: include source files only.`,
    };
  }
  return found;
}

function outsideMessage(name: string): string {
  return `\`include "${name}" reads a file outside the workspace: keep included files inside the workspace or an include folder.`;
}

/** The literal name at text[from]: "file" or <file>; null for a macro; undefined for anything else. */
function includeName(text: string, from: number): string | null | undefined {
  const m = /^\s*(?:"((?:[^"\\\n]|\\.)*)"|<([^>\n]*)>|(`))/.exec(text.slice(from, from + 4096));
  if (m?.[3]) return null;
  const name = m?.[1] ?? m?.[2];
  return name ? name : undefined;
}

function lineAndColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < offset; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

export function resolveInclude(name: string, ctx: IncludeContext): string | undefined {
  const bases = isAbsolute(name) ? [''] : [...ctx.includeDirs, ctx.cwd, ctx.mdir];
  for (const base of bases) {
    for (const suffix of suffixes) {
      const candidate = base ? resolve(base, name + suffix) : name + suffix;
      if (exists(candidate)) return candidate;
    }
  }
  return undefined;
}

export function within(path: string, roots: string[]): boolean {
  return roots.some((root) => {
    const rel = relative(root, path);
    return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
  });
}

export function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

function isRegularFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function readSource(p: string): string | undefined {
  try {
    const st = statSync(p);
    if (!st.isFile() || st.size > maxSourceBytes) return undefined;
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}
