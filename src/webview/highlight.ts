/** Syntax highlighting for testbench code: highlight.js with only the Verilog grammar (it reads SystemVerilog). */
import hljs from 'highlight.js/lib/core';
import verilog from 'highlight.js/lib/languages/verilog';

hljs.registerLanguage('verilog', verilog);

const VERILOG_NAMES = new Set(['verilog', 'systemverilog', 'sv', 'v', 'svh', '']);

/** Fills `code` with highlighted markup (highlight.js escapes the text); other languages stay plain. */
export function highlightInto(code: HTMLElement, text: string, lang = 'systemverilog'): void {
  if (!VERILOG_NAMES.has(lang.toLowerCase())) {
    code.textContent = text;
    return;
  }
  code.innerHTML = hljs.highlight(text, { language: 'verilog', ignoreIllegals: true }).value;
  code.classList.add('hljs');
}
