/**
 * The reverse of the quoting Verilator's runtime applies to every value (and long key name) it writes into
 * coverage.dat (verilated_cov.cpp, `dequote`): a byte that is not printable ASCII, `%` or `"` becomes `%` and
 * its hex code. The byte goes through `printf("%02X")` as a `char`, so on x86 (signed char) a byte of 0x80 or
 * above is sign-extended and written `%FFFFFFC3`; where char is unsigned it is `%C3`. Both forms are read, the
 * bytes put back, and the result decoded as UTF-8: `ü` in a path comes back as `ü`, not `%FFFFFFC3%FFFFFFBC`.
 */

/** `%FFFFFFxx` (a sign-extended byte 0x80–0xFF) or `%xx` (any byte). */
const ESCAPE = /%(?:FFFFFF([89A-F][0-9A-F])|([0-9A-F]{2}))/giy;

export function decodeCoverageText(text: string): string {
  if (!text.includes('%')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length;) {
    if (text[i] === '%') {
      ESCAPE.lastIndex = i;
      const m = ESCAPE.exec(text);
      if (m) {
        bytes.push(parseInt(m[1] ?? m[2], 16));
        i = ESCAPE.lastIndex;
        continue;
      }
    }
    // Anything else is the character itself (a stray `%` too, as Verilator's own reader keeps it).
    const code = text.codePointAt(i) ?? 0;
    const char = String.fromCodePoint(code);
    bytes.push(...Buffer.from(char, 'utf8'));
    i += char.length;
  }
  return Buffer.from(bytes).toString('utf8');
}
