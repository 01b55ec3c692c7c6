/** Questions the engine and the editor ask of an analysis. */
import type { BranchSite, CaseInfo, CaseItemInfo, DesignAnalysis, LiteralInfo, ModuleInfo } from '../protocol';
import { mask } from './numbers';

export function moduleByName(analysis: DesignAnalysis, name: string): ModuleInfo | undefined {
  return analysis.modules.find((m) => m.name === name);
}

function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  const norm = (p: string) => p.replace(/\\/g, '/');
  const [x, y] = [norm(a), norm(b)];
  return x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

/**
 * The innermost site (always block, if arm, case item) containing a line, to explain a coverage hole:
 * the one starting latest, then the shortest.
 */
export function findSite(analysis: DesignAnalysis, file: string, line: number): BranchSite | undefined {
  let best: BranchSite | undefined;
  for (const m of analysis.modules) {
    if (!sameFile(m.file, file) || line < m.range.startLine || line > m.range.endLine) continue;
    for (const s of m.sites) {
      const r = s.range;
      if (line < r.startLine || line > r.endLine) continue;
      if (
        !best ||
        r.startLine > best.range.startLine ||
        (r.startLine === best.range.startLine &&
          (r.startColumn > best.range.startColumn ||
            (r.startColumn === best.range.startColumn && r.endLine < best.range.endLine)))
      )
        best = s;
    }
  }
  return best;
}

/**
 * A lone module; a design's module with everything it instantiates (its logic may sit in children);
 * or every module of a design.
 */
function modulesOf(scope: ModuleInfo | DesignAnalysis, module?: string): ModuleInfo[] {
  if (!('modules' in scope)) return [scope];
  if (module === undefined) return scope.modules;
  const out: ModuleInfo[] = [];
  const visit = (name: string) => {
    const m = moduleByName(scope, name);
    if (!m || out.includes(m)) return;
    out.push(m);
    for (const i of m.instances) visit(i.module);
  };
  visit(module);
  return out;
}

/**
 * Every constant a module compares against, with what it is compared to. Given a design and a module
 * name, the module's descendants count too; given a design alone, every module.
 */
export function literalDetails(scope: ModuleInfo | DesignAnalysis, module?: string): LiteralInfo[] {
  return modulesOf(scope, module).flatMap((m) => m.literals ?? []);
}

/**
 * The distinct constants of a module (with its descendants when named in a design, or the whole design):
 * case item values and comparison operands, for a stimulus value dictionary. Don't-care bits read as 0.
 */
export function literalsOf(scope: ModuleInfo | DesignAnalysis, module?: string): bigint[] {
  const seen = new Set<bigint>();
  for (const l of literalDetails(scope, module)) seen.add(BigInt(l.value));
  return [...seen].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface UnreachableDefault {
  file: string;
  /** Line of the `default` item. */
  line: number;
  subject: string;
  /**
   * Why: every 2^w value of the subject has its own item (unreachable in two-state simulation), or every
   * member of its enum does (unreachable unless the variable is cast to a non-member value).
   */
  reason: string;
  /** True when every code of the subject is covered, not only the enum members. */
  exhaustive: boolean;
}

const MAX_ENUMERATED_WIDTH = 16;

/** True when the items' values and wildcards together match all 2^w codes. */
function coversAllCodes(c: CaseInfo): boolean {
  const w = c.subjectWidth;
  if (w === undefined || w < 1 || w > MAX_ENUMERATED_WIDTH || c.inside) return false;
  const values = c.items.flatMap((i) => i.values);
  if (values.some((v) => v === null)) return false;
  const size = 1 << w;
  const codes = values.map((v) => ({
    value: Number(BigInt(v!.value) & BigInt(size - 1)),
    care: ~Number(BigInt(v!.wildcardMask ?? '0')),
  }));
  if (codes.every((c2) => c2.care === -1) && values.length < size) return false;
  for (let x = 0; x < size; x++) if (!codes.some((c2) => ((x ^ c2.value) & c2.care) === 0)) return false;
  return true;
}

function coversEnum(c: CaseInfo): boolean {
  if (!c.enumMembers?.length) return false;
  const labels = new Set(c.items.flatMap((i) => i.labels.map((l) => l.trim())));
  return c.enumMembers.every((m) => labels.has(m));
}

/** The item an (x/z-free) value of the subject selects, by value and don't-care mask; undefined when none. */
export function caseItemFor(c: CaseInfo, value: bigint): { item: CaseItemInfo; label: string } | undefined {
  for (const item of c.items) {
    for (const [k, v] of item.values.entries()) {
      if (!v) continue;
      const care = ~BigInt(v.wildcardMask ?? '0');
      if (((value ^ BigInt(v.value)) & care & mask(c.subjectWidth ?? 64)) === 0n)
        return { item, label: item.labels[k] };
    }
  }
  return undefined;
}

function holdsOnlyItemValues(c: CaseInfo): boolean {
  return (c.subjectValues ?? []).every((v) => caseItemFor(c, BigInt(v)) !== undefined);
}

/** `S_IDLE, S_RUN, 2'd3`: the held values named by the items that select them. */
function heldLabels(c: CaseInfo): string {
  const labels = (c.subjectValues ?? []).map((v) => caseItemFor(c, BigInt(v))?.label.trim() ?? v);
  return labels.length > 8 ? `${labels.slice(0, 8).join(', ')} and ${labels.length - 8} more` : labels.join(', ');
}

/** The `default` items no stimulus can reach, so the engine marks their holes unreachable instead of chasing them. */
export function unreachableDefaults(scope: ModuleInfo | DesignAnalysis, module?: string): UnreachableDefault[] {
  const out: UnreachableDefault[] = [];
  for (const m of modulesOf(scope, module)) {
    for (const c of m.cases ?? []) {
      if (c.defaultLine === undefined) continue;
      const subject = `${c.keyword} (${c.subject})`;
      if (coversAllCodes(c)) {
        out.push({
          file: m.file,
          line: c.defaultLine,
          subject: c.subject,
          reason: `default of ${subject}: the items cover all ${2 ** c.subjectWidth!} values of the ${c.subjectWidth}-bit subject`,
          exhaustive: true,
        });
      } else if (c.subjectValues && holdsOnlyItemValues(c)) {
        out.push({
          file: m.file,
          line: c.defaultLine,
          subject: c.subject,
          reason: `default of ${subject}: ${c.subject} only ever holds ${heldLabels(c)} (its initial value and what is assigned to it), and each has an item`,
          exhaustive: false,
        });
      } else if (coversEnum(c)) {
        out.push({
          file: m.file,
          line: c.defaultLine,
          subject: c.subject,
          reason: `default of ${subject}: the items list every member of its enum`,
          exhaustive: false,
        });
      }
    }
  }
  return out;
}
