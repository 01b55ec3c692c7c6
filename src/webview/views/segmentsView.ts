/**
 * Streams prose and fenced code into the DOM incrementally: a frame appends only the new characters to the text
 * nodes it already has, and a code block is highlighted once, when its closing fence arrives.
 */
import { h } from '../dom';
import { highlightInto } from '../highlight';
import type { Segment } from '../responseText';

interface Part {
  kind: Segment['kind'];
  lang: string;
  el: HTMLElement;
  /** Where the text goes: the paragraph itself or the `<code>` inside the `<pre>`. */
  target: HTMLElement;
  rendered: string;
  highlighted: boolean;
}

export class SegmentsView {
  readonly el: HTMLElement;
  private parts: Part[] = [];

  constructor(className: string) {
    this.el = h('div', { class: className });
  }

  /** `hideCode`: leave code segments out (the card shows the parsed testbench in their place). */
  update(segments: Segment[], hideCode = false): void {
    const shown = hideCode ? segments.filter((s) => s.kind !== 'code') : segments;
    shown.forEach((seg, i) => {
      const lang = seg.kind === 'code' ? seg.lang : '';
      let part = this.parts[i];
      if (!part || part.kind !== seg.kind || part.lang !== lang) {
        part = this.makePart(seg.kind, lang);
        if (this.parts[i]) this.parts[i].el.replaceWith(part.el);
        else this.el.append(part.el);
        this.parts[i] = part;
      }
      this.render(part, seg);
    });
    for (const stale of this.parts.splice(shown.length)) stale.el.remove();
  }

  private makePart(kind: Segment['kind'], lang: string): Part {
    if (kind === 'text') {
      const p = h('div', { class: 'prose' });
      return { kind, lang, el: p, target: p, rendered: '', highlighted: false };
    }
    const code = h('code', { class: `language-${lang || 'text'}` });
    const pre = h('pre', { class: 'code streaming', tabindex: 0, 'aria-label': lang ? `${lang} code` : 'code' }, code);
    return { kind, lang, el: pre, target: code, rendered: '', highlighted: false };
  }

  private render(part: Part, seg: Segment): void {
    const closed = seg.kind === 'code' && seg.closed;
    if (closed) {
      if (!part.highlighted || part.rendered !== seg.text) {
        highlightInto(part.target, seg.text, part.lang);
        part.el.classList.remove('streaming');
        part.highlighted = true;
        part.rendered = seg.text;
      }
      return;
    }
    if (part.highlighted || !seg.text.startsWith(part.rendered)) {
      part.target.textContent = seg.text;
      part.highlighted = false;
    } else if (seg.text.length > part.rendered.length) {
      const delta = seg.text.slice(part.rendered.length);
      const last = part.target.lastChild;
      if (last instanceof Text) last.appendData(delta);
      else part.target.append(delta);
    }
    part.rendered = seg.text;
    if (seg.kind === 'code') part.el.scrollTop = part.el.scrollHeight;
  }
}
