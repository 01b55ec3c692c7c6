/**
 * Bender target expressions (`*`, `name`, `all(…)`, `any(…)`, `not(…)`, parentheses), as Bender's `target.rs`
 * reads them: names are case-insensitive and made of letters, digits, `.`, `_` and `-`.
 */

export type TargetExpr =
  | { op: 'wildcard' }
  | { op: 'name'; name: string }
  | { op: 'all' | 'any'; args: TargetExpr[] }
  | { op: 'not'; arg: TargetExpr };

/** Parses `text`; a bad expression throws an Error saying what is wrong (the caller adds file and line). */
export function parseTarget(text: string): TargetExpr {
  const tokens = text.match(/[A-Za-z0-9._-]+|\S/g) ?? [];
  let i = 0;
  const expect = (t: string) => {
    if (tokens[i] !== t) throw new Error(`expected \`${t}\` ${tokens[i] ? `before \`${tokens[i]}\`` : 'at the end'}`);
    i++;
  };
  const parse = (): TargetExpr => {
    const t = tokens[i++];
    if (t === undefined) throw new Error('the expression ends too early');
    if (t === '*') return { op: 'wildcard' };
    if (t === '(') {
      const inner = parse();
      expect(')');
      return inner;
    }
    const word = t.toLowerCase();
    if ((word === 'all' || word === 'any') && tokens[i] === '(') {
      expect('(');
      const args = [parse()];
      while (tokens[i] === ',') {
        i++;
        args.push(parse());
      }
      expect(')');
      return { op: word, args };
    }
    if (word === 'not' && tokens[i] === '(') {
      expect('(');
      const arg = parse();
      expect(')');
      return { op: 'not', arg };
    }
    if (!/^[a-z0-9._][a-z0-9._-]*$/.test(word)) throw new Error(`\`${t}\` is not a target name`);
    return { op: 'name', name: word };
  };
  const expr = parse();
  if (i < tokens.length) throw new Error(`unexpected \`${tokens[i]}\` after the expression`);
  return expr;
}

/** Whether `expr` holds with the `active` targets (lower case). */
export function matches(expr: TargetExpr, active: ReadonlySet<string>): boolean {
  switch (expr.op) {
    case 'wildcard':
      return true;
    case 'name':
      return active.has(expr.name);
    case 'all':
      return expr.args.every((a) => matches(a, active));
    case 'any':
      return expr.args.some((a) => matches(a, active));
    case 'not':
      return !matches(expr.arg, active);
  }
}

/**
 * The targets CHORUS sets by default: it simulates RTL with Verilator. (`bender script verilator` sets `verilator`
 * and `synthesis`; CHORUS runs a simulation, so `simulation` and `rtl` instead of `synthesis`.)
 */
export const DEFAULT_TARGETS: readonly string[] = ['verilator', 'simulation', 'rtl'];

/** The active set: the defaults, plus each name given, less each `-name` (as `bender -t -name`). */
export function activeTargets(given: readonly string[] = []): Set<string> {
  const out = new Set(DEFAULT_TARGETS);
  for (const raw of given) {
    const t = raw.trim().toLowerCase();
    if (t.startsWith('-')) out.delete(t.slice(1));
    else if (t) out.add(t);
  }
  return out;
}
