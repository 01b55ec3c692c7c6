/**
 * A whole design from its files: per-file syntax walks (cached by content; an edited file is reparsed
 * incrementally, see parser.ts), cross-file resolution of packages and typedefs, the instance hierarchy,
 * the top, and clock/reset carried up through instances.
 */
import { createHash } from 'node:crypto';
import { ChorusError, type DesignAnalysis, type ModuleInfo, type ResetInfo, type SourceFile } from '../protocol';
import { extractFile } from './extract';
import { VERILATOR_DEFINES } from './conditionals';
import { emptyScope, type RawFile } from './raw';
import { resolveModule } from './resolve';
import { Design, Scope } from './scope';

/** Least-recently-used map: re-analysis on every keystroke re-walks only the file that changed. */
class Lru<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value as string);
  }
}

const fileCache = new Lru<RawFile>(64);
const designCache = new Lru<DesignAnalysis>(16);

function hash(...parts: string[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex');
}

function extractCached(f: SourceFile, defined: string[]): { key: string; raw: RawFile } {
  const key = hash(f.name, f.content, ...defined);
  let raw = fileCache.get(key);
  if (!raw) {
    try {
      raw = extractFile(f.name, f.content, new Set([...VERILATOR_DEFINES, ...defined]));
    } catch (err) {
      // The parser gave up (see parseText's budget): the file reads as one error, not as a crash.
      if (!(err instanceof ChorusError)) throw err;
      raw = {
        file: f.name,
        modules: [],
        packages: [],
        unit: emptyScope(),
        macros: {},
        errors: [{ file: f.name, line: 1, column: 1, message: err.message }],
      };
    }
    fileCache.set(key, raw);
  }
  return { key, raw };
}

export interface AnalysisOptions {
  top?: string | undefined;
  /**
   * Top parameter overrides (`-G name=value`, Verilog constant text): the top's parameters take these values in
   * place of their defaults, so widths, constant conditions and unreachable-code claims are those of the build.
   */
  parameters?: Record<string, string> | undefined;
  /**
   * The design's macros (`-D`, `+define+`): `ifdef`/`ifndef` branches are read as the build compiles them. Without
   * them, code a define enables would be missing from the analysis, and with it every claim about what reaches what.
   */
  defines?: Record<string, string | undefined> | undefined;
}

/** A file whose module `top` has the overridden parameter defaults (cached raws are shared: copied, not changed). */
function withOverrides(raw: RawFile, top: string, parameters: Record<string, string>): RawFile {
  if (!raw.modules.some((m) => m.name === top)) return raw;
  return {
    ...raw,
    modules: raw.modules.map((m) =>
      m.name !== top
        ? m
        : {
            ...m,
            params: m.params.map((p) =>
              !p.isType && parameters[p.name] !== undefined ? { ...p, default: parameters[p.name] } : p,
            ),
          },
    ),
  };
}

/**
 * Analyses a design given as texts. Synchronous; the result is cached per content (and `top`) and shared,
 * so treat it as read-only.
 */
export function analyzeSources(files: SourceFile[], opts: AnalysisOptions = {}): DesignAnalysis {
  const defined = Object.keys(opts.defines ?? {}).sort();
  const extracted = files.map((f) => extractCached(f, defined));
  const overrides = Object.entries(opts.parameters ?? {});
  const key = hash(...extracted.map((e) => e.key), opts.top ?? '', ...overrides.flat());
  const cached = designCache.get(key);
  if (cached) return cached;
  const raws = extracted.map((e) => e.raw);
  const analysis = build(
    overrides.length && opts.top ? raws.map((r) => withOverrides(r, opts.top!, opts.parameters!)) : raws,
    opts.top,
  );
  designCache.set(key, analysis);
  return analysis;
}

/** The compilation unit and packages of a set of files, for resolving names across them. */
function designOf(raws: RawFile[]): Design {
  const design = new Design(Object.assign({}, ...raws.map((r) => r.macros)) as Record<string, string>);
  for (const r of raws) {
    design.unit.add(r.unit);
    for (const p of r.packages) {
      const scope = design.packages.get(p.name) ?? new Scope(design, design.unit);
      scope.add(p);
      design.packages.set(p.name, scope);
    }
  }
  return design;
}

/**
 * The per-file extractions behind `analyzeSources` (from the same cache, so no second parse right after an
 * analysis) with their shared scopes: for analyses that need the statements themselves, not only ModuleInfo.
 */
export function designSources(files: SourceFile[], opts: AnalysisOptions = {}): { raws: RawFile[]; design: Design } {
  const defined = Object.keys(opts.defines ?? {}).sort();
  let raws = files.map((f) => extractCached(f, defined).raw);
  if (opts.top && Object.keys(opts.parameters ?? {}).length)
    raws = raws.map((r) => withOverrides(r, opts.top!, opts.parameters!));
  return { raws, design: designOf(raws) };
}

function build(raws: RawFile[], askedTop: string | undefined): DesignAnalysis {
  const design = designOf(raws);
  const modules = raws.flatMap((r) => r.modules).map((m) => resolveModule(m, design));
  const byName = new Map<string, ModuleInfo>();
  for (const m of modules) if (!byName.has(m.name)) byName.set(m.name, m);

  const instantiated = new Set<string>();
  for (const m of modules)
    for (const i of m.instances) if (i.module !== m.name && byName.has(i.module)) instantiated.add(i.module);
  const topCandidates = [...byName.keys()].filter((n) => !instantiated.has(n));
  carryClockReset(byName);

  const top =
    askedTop !== undefined
      ? byName.has(askedTop)
        ? askedTop
        : null
      : topCandidates.length === 1
        ? topCandidates[0]
        : null;
  const topInfo = top !== null ? byName.get(top) : undefined;
  return {
    modules,
    top,
    topCandidates,
    clock: topInfo?.clock ?? null,
    reset: topInfo?.reset ?? null,
    clocks: topInfo?.clocks ?? [],
    resets: topInfo?.resets ?? [],
    topChoices: rankTopChoices(byName, topCandidates),
    errors: raws.flatMap((r) => r.errors),
  };
}

/**
 * Every module, ranked for a top picker: the uninstantiated ones first (source order), then what they
 * instantiate level by level (a core under its wrappers), then any left (modules only in a cycle).
 */
function rankTopChoices(byName: Map<string, ModuleInfo>, tops: string[]): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  let level = tops;
  while (level.length) {
    const next: string[] = [];
    for (const n of level) {
      if (seen.has(n)) continue;
      seen.add(n);
      out.push(n);
      for (const i of byName.get(n)?.instances ?? [])
        if (byName.has(i.module) && !seen.has(i.module)) next.push(i.module);
    }
    level = next;
  }
  for (const n of byName.keys()) if (!seen.has(n)) out.push(n);
  return out;
}

/** The expression connected to a child's port in one instance, if any. */
export function connection(inst: ModuleInfo['instances'][number], child: ModuleInfo, port: string): string | undefined {
  const conns = inst.connections ?? [];
  const named = conns.find((c) => c.port === port);
  if (named) return named.expr;
  if (conns.some((c) => c.port === '*')) return port;
  if (conns.length && conns.every((c) => c.port === null)) {
    const i = child.ports.findIndex((p) => p.name === port);
    return i >= 0 ? conns[i]?.expr : undefined;
  }
  return undefined;
}

/** A wrapper with no always blocks of its own takes its clock and reset from what it wires into children. */
function carryClockReset(byName: Map<string, ModuleInfo>): void {
  const done = new Set<string>();
  const visit = (m: ModuleInfo) => {
    if (done.has(m.name)) return;
    done.add(m.name);
    const inputs = new Set(m.ports.filter((p) => p.direction === 'input' && p.width === 1).map((p) => p.name));
    for (const inst of m.instances) {
      const child = byName.get(inst.module);
      if (!child || child === m) continue;
      visit(child);
      if (!m.clock && child.clock) {
        const expr = connection(inst, child, child.clock)?.trim();
        if (expr && inputs.has(expr)) m.clock = expr;
      }
      // Every clock a child takes from one of this module's inputs is a clock here too.
      for (const c of child.clocks ?? (child.clock ? [child.clock] : [])) {
        const expr = connection(inst, child, c)?.trim();
        if (!expr || !inputs.has(expr)) continue;
        if (!m.clock) m.clock = expr;
        m.clocks = addOnce(m.clocks ?? [], expr, m.clock);
      }
      if (!m.reset && child.reset) {
        const expr = connection(inst, child, child.reset.name)?.trim();
        const neg = expr ? /^[!~]\s*([A-Za-z_][\w$]*)$/.exec(expr) : null;
        const name = neg ? neg[1] : expr;
        if (name && inputs.has(name) && name !== m.clock) {
          const reset: ResetInfo = {
            name,
            activeLow: neg ? !child.reset.activeLow : child.reset.activeLow,
            async: child.reset.async,
          };
          m.reset = reset;
        }
      }
      // A child's domain reset wired from this module's input is this module's domain reset.
      for (const r of child.resets ?? []) {
        const expr = connection(inst, child, r.name)?.trim();
        if (!expr || !inputs.has(expr) || expr === m.reset?.name || (m.clocks ?? []).includes(expr)) continue;
        if (!(m.resets ?? []).some((x) => x.name === expr)) m.resets = [...(m.resets ?? []), { ...r, name: expr }];
      }
    }
    if (m.clock) m.clocks = addOnce(m.clocks ?? [], m.clock, m.clock);
    // The primary reset leads the list, as the primary clock leads `clocks`.
    if (m.reset) m.resets = [m.reset, ...(m.resets ?? []).filter((r) => r.name !== m.reset!.name)];
  };
  for (const m of byName.values()) visit(m);
}

/** `list` with `name` added once, `primary` moved first. */
function addOnce(list: string[], name: string, primary: string | null): string[] {
  const out = list.includes(name) ? [...list] : [...list, name];
  return primary && out.includes(primary) ? [primary, ...out.filter((n) => n !== primary)] : out;
}
