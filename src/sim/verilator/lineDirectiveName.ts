/**
 * The file name inside a `line directive Verilator's preprocessor wrote. From 5.018 Verilator quotes it as a
 * SystemVerilog string (V3OutFormatter::quoteNameControls): `\\` and `\"`, `\n`, `\t`, `\r`, and every other byte
 * that is not printable ASCII as three octal digits, so `ü` is `\303\274`. Earlier versions write the name raw.
 * The bytes are put back and decoded as UTF-8, the reverse of VString::unquoteSVString.
 */

const SIMPLE: Record<string, number> = { n: 10, t: 9, r: 13, a: 7, f: 12, v: 11 };

/** `quoted` is the text between the directive's quotes, escapes and all. */
export function decodeDirectiveName(quoted: string): string {
  if (!quoted.includes('\\')) return quoted;
  const bytes: number[] = [];
  const raw = Buffer.from(quoted, 'utf8');
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (c !== 0x5c || i + 1 >= raw.length) {
      bytes.push(c);
      continue;
    }
    const next = String.fromCharCode(raw[++i]);
    const octal = /^[0-7]{1,3}/.exec(String.fromCharCode(...raw.subarray(i, i + 3)));
    const hex = next === 'x' ? /^[0-9A-Fa-f]{2}/.exec(String.fromCharCode(...raw.subarray(i + 1, i + 3))) : null;
    if (octal) {
      bytes.push(parseInt(octal[0], 8) & 0xff);
      i += octal[0].length - 1;
    } else if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else {
      bytes.push(SIMPLE[next] ?? raw[i]);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A `line directive: its line number, file name (decoded) and level; undefined for any other line. */
export function parseLineDirective(line: string): { line: number; file: string; level: number } | undefined {
  const m = /^\s*`line\s+(\d+)\s+"((?:[^"\\]|\\.)*)"\s*(\d*)/.exec(line);
  if (!m) return undefined;
  return { line: Number(m[1]), file: decodeDirectiveName(m[2]), level: m[3] ? Number(m[3]) : 0 };
}
