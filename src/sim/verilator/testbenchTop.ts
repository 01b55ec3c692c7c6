/**
 * Finds the top module of a testbench file: among the modules it declares, the one no other module of the
 * file instantiates (preferring a testbench-like name when several qualify). Text-level on purpose: the
 * file may not even parse, and Verilator's own error is the better diagnostic then.
 */

/** Comments, strings and attributes blanked out, keeping line structure. */
export function stripSvNoise(text: string): string {
  return text.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\\n]|\\.)*"|\(\*[\s\S]*?\*\)/g, (m) =>
    m.replace(/[^\n]/g, ' '),
  );
}

const DECL = /\b(?:module|macromodule|program)\s+(?:(?:automatic|static)\s+)?([A-Za-z_][A-Za-z0-9_$]*)/g;
const NOT_DECLARATION = String.raw`(?<!\b(?:module|macromodule|program)\s+(?:(?:automatic|static)\s+)?)(?<!\bend(?:module|program)\s*:\s*)`;
const TESTBENCH_NAME = /(^tb|tb$|test|bench)/i;

export function findTestbenchTop(text: string): string | undefined {
  const code = stripSvNoise(text);
  const declared = [...code.matchAll(DECL)].map((m) => m[1]);
  if (declared.length <= 1) return declared[0];
  const instantiated = new Set<string>();
  for (const name of declared) {
    // `name #(…) inst (` or `name inst (` somewhere other than its own declaration.
    const use = new RegExp(`${NOT_DECLARATION}\\b${name.replace(/\$/g, '\\$')}\\s*(?:#|[A-Za-z_])`);
    if (use.test(code)) instantiated.add(name);
  }
  const roots = declared.filter((n) => !instantiated.has(n));
  const pool = roots.length ? roots : declared;
  return pool.find((n) => TESTBENCH_NAME.test(n)) ?? pool[pool.length - 1];
}
