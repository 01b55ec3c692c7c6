/** Coverage lines → the statement/branch shape of VS Code's Test Coverage API, as plain data. Pure. */
import type { LineCoverage } from '../protocol';
import { isDeclaration, mergeLine } from './coverageModel';

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
 */
export function statementSpecs(lines: readonly LineCoverage[]): StatementSpec[] {
  const byLine = new Map<number, LineCoverage>();
  for (const lc of lines) {
    const prev = byLine.get(lc.line);
    byLine.set(lc.line, prev ? mergeLine(prev, lc) : lc);
  }
  return [...byLine.values()]
    .filter((lc) => !isDeclaration(lc))
    .sort((a, b) => a.line - b.line)
    .map((lc) => ({
      line: lc.line,
      // A line whose arms ran has run, even when Verilator put no line point on it.
      executed: Math.max(lc.hits, lc.branches.some((b) => b.count > 0) ? 1 : 0),
      branches: lc.branches.map((b) => ({ label: b.label, executed: b.count })),
    }));
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
