/**
 * lcov tracefile output (Coverage Gutters, Codecov, genhtml), written from the exact points, not from
 * verilator_coverage. FSM states and arcs are branch records (`BRDA`) on their lines, block 1 for states and 2
 * for arcs, where verilator_coverage folds them into one `DA` line.
 */
import type { CoveragePoint } from '../../protocol';
import { lineCoverage } from './lineCoverage';

export function toLcov(points: CoveragePoint[], displayName: (file: string) => string = (f) => f): string {
  const out: string[] = ['TN:chorus'];
  const lines = lineCoverage(points);
  const files = [...new Set(lines.map((l) => l.file))];
  for (const file of files) {
    const mine = lines.filter((l) => l.file === file);
    out.push(`SF:${displayName(file)}`);
    let branchesFound = 0;
    let branchesHit = 0;
    for (const l of mine) {
      l.branches.forEach((b, i) => {
        out.push(`BRDA:${l.line},0,${i},${b.count}`);
        branchesFound++;
        if (b.count > 0) branchesHit++;
      });
    }
    // FSM states and arcs as branch records of their own blocks (1: states, 2: arcs), one per state or arc.
    for (const l of mine) {
      (l.fsm ?? []).forEach((f, i) => {
        out.push(`BRDA:${l.line},${f.kind === 'fsm_state' ? 1 : 2},${i},${f.count}`);
        branchesFound++;
        if (f.count > 0) branchesHit++;
      });
    }
    if (branchesFound) out.push(`BRF:${branchesFound}`, `BRH:${branchesHit}`);
    for (const l of mine) out.push(`DA:${l.line},${l.hits}`);
    out.push(`LF:${mine.length}`, `LH:${mine.filter((l) => l.hits > 0).length}`, 'end_of_record');
  }
  return `${out.join('\n')}\n`;
}
