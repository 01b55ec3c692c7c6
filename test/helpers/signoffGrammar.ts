/**
 * Checkers for the exclusion files CHORUS exports for URG and IMC, written from the grammar of their public examples
 * (OpenTitan's hw/dv/tools/vcs/common_cov_excl.el and hw/dv/tools/xcelium/common_cov_excl.tcl): no URG or IMC runs
 * here. Each returns the exclusions it read, or throws naming the line that does not parse.
 */

export interface UrgToggle {
  instance: string;
  signal: string;
  bit?: number;
  /** The quoted declaration: `logic q[3:0]`. */
  decl: string;
}

/** `//` comments, `INSTANCE: <path>`, then `Toggle <signal> [<bit>] "logic <signal>[<msb>:<lsb>]"` lines. */
export function parseUrgToggles(text: string): UrgToggle[] {
  const out: UrgToggle[] = [];
  let instance: string | undefined;
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    if (!line || line.startsWith('//')) return;
    const inst = /^INSTANCE: ([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*)$/.exec(line);
    if (inst) {
      instance = inst[1];
      return;
    }
    const t = /^Toggle ([A-Za-z_][\w$.]*)(?: \[(\d+)\])? "logic ([A-Za-z_][\w$.]*)(\[(\d+):(\d+)\])?"$/.exec(line);
    if (!t) throw new Error(`line ${i + 1}: not a URG toggle exclusion: ${line}`);
    if (!instance) throw new Error(`line ${i + 1}: a Toggle before any INSTANCE:`);
    if (t[2] !== undefined) {
      if (!t[4]) throw new Error(`line ${i + 1}: a bit of a scalar`);
      const [msb, lsb, bit] = [Number(t[5]), Number(t[6]), Number(t[2])];
      if (bit < Math.min(msb, lsb) || bit > Math.max(msb, lsb)) throw new Error(`line ${i + 1}: bit out of range`);
    }
    out.push({
      instance,
      signal: t[1],
      ...(t[2] !== undefined ? { bit: Number(t[2]) } : {}),
      decl: `logic ${t[3]}${t[4] ?? ''}`,
    });
  });
  return out;
}

export interface ImcExclude {
  instance: string;
  pattern: string;
  category: string;
  /** The comment as Tcl reads it (escapes removed). */
  comment: string;
}

/**
 * `#` comments and `exclude -inst <path> -toggle '<pattern>' -comment "\[<CATEGORY>\] <text>"` lines, the comment a
 * Tcl double-quoted word: `\`, `"`, `[`, `]` and `$` only escaped (an unescaped `[` would run a Tcl command).
 */
export function parseImcExcludes(text: string): ImcExclude[] {
  const out: ImcExclude[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    if (!line || line.startsWith('#')) return;
    const m =
      /^exclude -inst (\$::env\(\w+\)|[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)*) -toggle '([\w$.*]+)' -comment "((?:[^"\\[\]$]|\\[\\"[\]$])*)"$/.exec(
        line,
      );
    if (!m) throw new Error(`line ${i + 1}: not an IMC toggle exclude: ${line}`);
    const comment = m[3].replace(/\\(.)/g, '$1');
    const cat = /^\[(UNR|UNSUPPORTED|LOW_RISK)\] /.exec(comment);
    if (!cat) throw new Error(`line ${i + 1}: the comment does not begin with [UNR], [UNSUPPORTED] or [LOW_RISK]`);
    out.push({ instance: m[1], pattern: m[2], category: cat[1], comment });
  });
  return out;
}
