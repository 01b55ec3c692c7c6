/**
 * Conditional compilation (`ifdef/`ifndef/`elsif/`else/`endif) resolved the way Verilator sees the file, so
 * the analysis describes the design that is simulated. Inactive code and the directives themselves become
 * spaces (newlines kept), so every line and column stays where it was.
 */

/** Macros Verilator defines on its own (Verilator 5 manual, "Predefined macros"). */
export const VERILATOR_DEFINES: ReadonlySet<string> = new Set([
  'VERILATOR',
  'verilator',
  'verilator3',
  'SYSTEMVERILOG',
  'SV_COV_START',
]);

// `else and `endif take no name: whatever follows them on the line is code
const DIRECTIVE = /`(?:(ifdef|ifndef|elsif|define|undef)\b[ \t]*([A-Za-z_][\w$]*)?|(else|endif)\b)/y;

interface Frame {
  /** This branch is being compiled. */
  active: boolean;
  /** Some branch of this `ifdef has been compiled. */
  taken: boolean;
  /** The code around the `ifdef is compiled. */
  outer: boolean;
}

function blank(text: string): string {
  return text.replace(/[^\n]/g, ' ');
}

/** The text with inactive branches blanked; unchanged (same string) when it has no conditionals. */
export function resolveConditionals(text: string, predefined: ReadonlySet<string> = VERILATOR_DEFINES): string {
  if (!/`(ifdef|ifndef)\b/.test(text)) return text;
  const defined = new Set(predefined);
  const stack: Frame[] = [];
  const active = () => stack.length === 0 || stack[stack.length - 1].active;
  let out = '';
  let copied = 0; // text before this index is already in `out`
  const flushTo = (end: number, activeRun: boolean) => {
    const piece = text.slice(copied, end);
    out += activeRun ? piece : blank(piece);
    copied = end;
  };

  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    // comments and strings are not scanned for directives
    if (ch === '/' && text[i + 1] === '/') {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl;
      continue;
    }
    if (ch === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      continue;
    }
    if (ch === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"' && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      i = j + 1;
      continue;
    }
    if (ch !== '`') {
      i++;
      continue;
    }
    DIRECTIVE.lastIndex = i;
    const m = DIRECTIVE.exec(text);
    if (!m) {
      i++;
      continue;
    }
    const [whole, named, name, bare] = m;
    const kind = named ?? bare;
    const end = i + whole.length;
    if (kind === 'define' || kind === 'undef') {
      if (active() && name) {
        if (kind === 'define') defined.add(name);
        else defined.delete(name);
      }
      i = end;
      continue;
    }
    const wasActive = active();
    // everything up to the directive keeps its state; the directive itself is blanked
    flushTo(i, wasActive);
    out += blank(whole);
    copied = end;
    const top = stack[stack.length - 1];
    switch (kind) {
      case 'ifdef':
      case 'ifndef': {
        const cond = name !== undefined && defined.has(name) === (kind === 'ifdef');
        stack.push({ outer: wasActive, active: wasActive && cond, taken: cond });
        break;
      }
      case 'elsif':
        if (top) {
          const cond = !top.taken && name !== undefined && defined.has(name);
          top.active = top.outer && cond;
          top.taken ||= cond;
        }
        break;
      case 'else':
        if (top) {
          top.active = top.outer && !top.taken;
          top.taken = true;
        }
        break;
      default: // endif
        stack.pop();
    }
    i = end;
  }
  flushTo(text.length, active());
  return out;
}
