/**
 * Exclusions for the commercial signoff tools, written only in the forms their public examples show (OpenTitan's
 * hw/dv/tools/vcs/common_cov_excl.el and hw/dv/tools/xcelium/common_cov_excl.tcl): toggle exclusions. Synopsys URG
 * writes its line (`Block`), branch and condition exclusions with checksums of the module and of each item that
 * only URG computes (`CHECKSUM: "…"`, `Block 43 "3846199569" …`), and Cadence IMC names blocks by its own ids: a
 * checksum CHORUS made up would be refused or, worse, match nothing silently. Those kinds are exported for
 * Verilator (`--vlt`), lcov and Cobertura only (docs/waivers.md).
 *
 * Points are named below the DUT (CHORUS's `TOP.tb_<top>.uut.u_fifo` is `u_fifo`) and placed under the DUT's
 * path in the user's own testbench (`--dut-path`, `tb.dut`).
 */
import type { CoveragePoint, Hole } from '../../protocol';
import { instanceBelow } from '../closure/ledger';
import { isExcluded } from '../verdict';
import { holeOf } from './check';

export const URG_HEADER = '// CHORUS exclusions for URG';
export const IMC_HEADER = '# CHORUS exclusions for IMC';

export interface SignoffPlace {
  /** The DUT's instance path in the user's testbench, as the tools name it (`tb.dut`). */
  dutPath: string;
  /** The DUT's instance name in CHORUS's testbench (`uut`). */
  dutInstance: string;
}

/** One signal's toggle exclusions in one instance. */
interface ToggleSignal {
  instance: string;
  signal: string;
  /** The bits of the signal Verilator counts, undefined for a scalar. */
  bits?: number[];
  /** The excluded bits (all of `bits` for a whole vector), undefined for a scalar. */
  excludedBits?: number[];
  /** `[UNR] k-induction, depth 1`, `[LOW_RISK] tied off (who: ana)`. */
  why: string;
}

const BIT = /^(.*)\[(\d+)\]$/;

function whyOf(h: Hole): string {
  if (h.waiver) return `[${h.waiver.category}] ${h.waiver.reason}${h.waiver.who ? ` (${h.waiver.who})` : ''}`;
  return `[UNR] ${h.unreachable ?? 'proven unreachable'}`;
}

/** Excluded toggle points grouped by instance and signal, sorted by both. */
function toggleSignals(points: CoveragePoint[], holes: Hole[], place: SignoffPlace): ToggleSignal[] {
  const excluded = holes.filter(isExcluded);
  const signals = new Map<string, ToggleSignal & { all: boolean; any: boolean; reasons: Set<string> }>();
  for (const p of points.filter((x) => x.kind === 'toggle')) {
    const below = instanceBelow(p.hierarchy, place.dutInstance);
    if (below === undefined) continue;
    const m = BIT.exec(p.comment);
    const signal = m ? m[1] : p.comment;
    const key = `${below}\u0000${signal}`;
    const s = signals.get(key) ?? {
      instance: below ? `${place.dutPath}.${below}` : place.dutPath,
      signal,
      ...(m ? { bits: [], excludedBits: [] } : {}),
      why: '',
      all: true,
      any: false,
      reasons: new Set<string>(),
    };
    signals.set(key, s);
    const hole = p.count === 0 ? excluded.find((h) => holeOf(h, p)) : undefined;
    if (m) s.bits?.push(Number(m[2]));
    if (hole) {
      s.any = true;
      s.reasons.add(whyOf(hole));
      if (m) s.excludedBits?.push(Number(m[2]));
    } else s.all = false;
  }
  return [...signals.values()]
    .filter((s) => s.any)
    .sort((a, b) => a.instance.localeCompare(b.instance) || a.signal.localeCompare(b.signal))
    .map(({ all, any: _any, reasons, ...s }) => ({
      ...s,
      ...(all && s.bits ? { excludedBits: s.bits } : {}),
      why: [...reasons].join('; '),
    }));
}

const range = (bits: number[]) => `[${Math.max(...bits)}:${Math.min(...bits)}]`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * A URG exclusion file (`urg -elfile`): an `INSTANCE:` block per instance, one `Toggle` line per excluded signal or
 * bit, as common_cov_excl.el writes them (`Toggle q [3] "logic q[3:0]"`, a whole signal without the bit). The
 * category and reason go in a `//` comment above each line: the checksum-free toggle form carries no annotation.
 */
export function toUrgEl(points: CoveragePoint[], holes: Hole[], place: SignoffPlace): string {
  const out = [
    `${URG_HEADER} (docs/waivers.md): toggle points proven unreachable or waived, for urg -elfile.`,
    '// Line and branch exclusions need checksums only URG computes: they are in the --vlt, --lcov and --cobertura exports.',
  ];
  let instance: string | undefined;
  for (const s of toggleSignals(points, holes, place)) {
    if (s.instance !== instance) {
      out.push(`INSTANCE: ${s.instance}`);
      instance = s.instance;
    }
    out.push(`// ${oneLine(s.why)}`);
    const decl = `"logic ${s.signal}${s.bits ? range(s.bits) : ''}"`;
    const whole = !s.bits || s.excludedBits?.length === s.bits.length;
    if (whole) out.push(`Toggle ${s.signal} ${decl}`);
    else
      for (const b of [...(s.excludedBits ?? [])].sort((x, y) => x - y)) out.push(`Toggle ${s.signal} [${b}] ${decl}`);
  }
  return `${out.join('\n')}\n`;
}

/** Inside a Tcl double-quoted word: `\`, `"`, `[`, `]` and `$` escaped, as common_cov_excl.tcl escapes `\[UNR\]`. */
const tclQuoted = (s: string) => `"${oneLine(s).replace(/[\\"[\]$]/g, (c) => `\\${c}`)}"`;

/**
 * Cadence IMC exclusion commands (`exclude -inst … -toggle '…' -comment "…"`, common_cov_excl.tcl's form), one per
 * wholly excluded signal. IMC's public example excludes whole signals only, so a vector with only some bits excluded
 * is listed in a comment, not exported.
 */
export function toImcTcl(points: CoveragePoint[], holes: Hole[], place: SignoffPlace): string {
  const out = [
    `${IMC_HEADER} (docs/waivers.md): toggle points proven unreachable or waived, for imc -exec.`,
    '# Line and branch exclusions name IMC-computed ids: they are in the --vlt, --lcov and --cobertura exports.',
  ];
  for (const s of toggleSignals(points, holes, place)) {
    const whole = !s.bits || s.excludedBits?.length === s.bits.length;
    if (!whole) {
      const bits = [...(s.excludedBits ?? [])].sort((x, y) => x - y).join(', ');
      out.push(`# not exported: ${s.instance}.${s.signal} bits ${bits} only (${oneLine(s.why)})`);
      continue;
    }
    out.push(`exclude -inst ${s.instance} -toggle '${s.signal}' -comment ${tclQuoted(s.why)}`);
  }
  return `${out.join('\n')}\n`;
}
