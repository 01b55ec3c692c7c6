/** A highlighted testbench with Open, Apply and Copy. */
import { h } from '../dom';
import { highlightInto } from '../highlight';

export interface CodeBlockOptions {
  title: string;
  text: string;
  /** What a screen reader calls the code region. */
  label: string;
  onOpen?: () => void;
  onApply?: () => void;
  onCopy: () => void;
}

function button(label: string, aria: string, onClick: () => void): HTMLElement {
  const b = h('vscode-button', { secondary: true, 'aria-label': aria, title: aria }, label);
  b.addEventListener('click', onClick);
  return b;
}

export function codeBlock(opts: CodeBlockOptions): HTMLElement {
  const code = h('code', { class: 'language-systemverilog' });
  highlightInto(code, opts.text.replace(/\n$/, ''));
  const copy = button('Copy', `Copy ${opts.label}`, () => {
    opts.onCopy();
    copy.textContent = 'Copied';
    setTimeout(() => (copy.textContent = 'Copy'), 1500);
  });
  const actions = h(
    'div',
    { class: 'code-actions', role: 'toolbar', 'aria-label': `${opts.label} actions` },
    opts.onOpen ? button('Open', `Open ${opts.label} in an editor`, opts.onOpen) : null,
    opts.onApply ? button('Apply', `Write ${opts.label} to the testbench file`, opts.onApply) : null,
    copy,
  );
  const lines = opts.text.replace(/\n$/, '').split('\n').length;
  return h(
    'section',
    { class: 'code-block', 'aria-label': opts.label },
    h(
      'header',
      { class: 'code-head' },
      h('span', { class: 'code-title' }, opts.title),
      h('span', { class: 'code-lines' }, `${lines} lines`),
      actions,
    ),
    h('pre', { class: 'code', tabindex: 0, 'aria-label': opts.label }, code),
  );
}
