/**
 * Coverage lines → the statement/branch shape of VS Code's Test Coverage API, as plain data. Pure.
 *
 * Points excluded by the signoff (proven unreachable, or waived by the waiver file: the verdict's rule): the API
 * has no "excluded" state, and showing them as missed would call a closed run open, showing them as executed
 * would be false. So they are left out of the details (and so of the view's totals, as URG and IMC count
 * exclusions) and listed by name in the test run's output.
 */
import { armHole, isProven, type Hole, type LineCoverage } from '../protocol';
import { deadBlockLines, excluded, isDeclaration, lineState, mergeLine } from './coverageModel';

export interface BranchSpec {
  label: string;
  executed: number;
}

export interface StatementSpec {
  /** 1-based. */
  line: number;
  executed: number;
  branches: BranchSpec[];
}

/**
 * One statement per executable line (records of several instances added up), its branch arms as children.
 * Lines that carry only toggle points (signal declarations) are not statements: they have no execution count.
 * `holes` (the file's): an arm never taken and proven unreachable is left out, and so is a statement that never ran
 * when all it misses is proven unreachable or it lies in the block (span) of a point proven unreachable.
 */
export function statementSpecs(lines: readonly LineCoverage[], holes: readonly Hole[] = []): StatementSpec[] {
  const byLine = new Map<number, LineCoverage>();
  for (const lc of lines) {
    const prev = byLine.get(lc.line);
    byLine.set(lc.line, prev ? mergeLine(prev, lc) : lc);
  }
  const holesOf = (line: number) => holes.filter((h) => h.line === line);
  const dead = deadBlockLines(holes);
  const proven = (line: number) => {
    const own = holesOf(line);
    if (!own.length) return dead.has(line);
    const state = lineState(byLine.get(line), own);
    return state === 'proven' || state === 'waived';
  };
  return [...byLine.values()]
    .filter((lc) => !isDeclaration(lc))
    .sort((a, b) => a.line - b.line)
    .map((lc) => ({
      line: lc.line,
      // A line whose arms ran has run, even when Verilator put no line point on it.
      executed: Math.max(lc.hits, lc.branches.some((b) => b.count > 0) ? 1 : 0),
      branches: [
        ...lc.branches
          .filter((b) => b.count > 0 || !excluded(armHole(holesOf(lc.line), b.label) ?? {}))
          .map((b) => ({ label: b.label, executed: b.count })),
        // FSM states (on their case item) and arcs (on their assignment) as the line's branches: the API has no
        // FSM kind, and a state visited or an arc taken is an outcome of that line, like a branch arm.
        ...(lc.fsm ?? []).map((f) => ({
          label: `FSM ${f.kind === 'fsm_state' ? 'state' : 'arc'} ${f.label}`,
          executed: f.count,
        })),
      ],
    }))
    .filter((s) => s.executed > 0 || !proven(s.line));
}

/** The points of a file proven unreachable: what {@link statementSpecs} leaves out, for the run's output. */
export function provenPoints(holes: readonly Hole[]): Hole[] {
  return holes.filter((h) => (h.kind === 'line' || h.kind === 'branch') && isProven(h));
}

/** The points of a file waived (and not proven in this run): left out too, listed with who waived them and why. */
export function waivedPoints(holes: readonly Hole[]): Hole[] {
  return holes.filter((h) => (h.kind === 'line' || h.kind === 'branch') && !isProven(h) && h.waiver !== undefined);
}

export interface CoverageCounts {
  statements: { covered: number; total: number };
  branches: { covered: number; total: number };
}

/** The counts VS Code derives from the details: what the Test Coverage view will show for the file. */
export function countSpecs(specs: readonly StatementSpec[]): CoverageCounts {
  const out: CoverageCounts = { statements: { covered: 0, total: 0 }, branches: { covered: 0, total: 0 } };
  for (const s of specs) {
    out.statements.total++;
    if (s.executed > 0) out.statements.covered++;
    for (const b of s.branches) {
      out.branches.total++;
      if (b.executed > 0) out.branches.covered++;
    }
  }
  return out;
}
