/**
 * The remaining holes, one row per source line; a row reveals its line in the DUT editor. Points proven
 * unreachable follow under their own heading, marked as proofs, not holes.
 */
import { isMeasured } from '../../protocol';
import { h } from '../dom';
import { shortNames } from '../fileNames';
import { describeKinds, groupHoles, summarizeDetails } from '../holeGroups';
import type { RunModel } from '../model';
import type { ViewContext } from './context';

const FIRST_ROWS = 60;

export function holesList(ctx: ViewContext, run: RunModel, showAll: boolean, onShowAll: () => void): HTMLElement {
  const groups = groupHoles(run.holes);
  const measured = run.rounds.some((r) => r.coverage) || (run.result !== undefined && isMeasured(run.result.coverage));
  if (!groups.length) {
    const ended = run.result !== undefined || run.ended !== undefined;
    return h(
      'p',
      { class: 'empty' },
      measured
        ? 'No holes left.'
        : ended
          ? 'Nothing was measured: no testbench compiled and ran.'
          : 'Holes appear here after the first simulation.',
    );
  }
  const shown = showAll ? groups : groups.slice(0, FIRST_ROWS);
  const name = shortNames(groups.map((g) => g.file));
  const list = h('ul', { class: 'holes', 'aria-label': 'Remaining holes' });
  let provenHeading = false;
  for (const g of shown) {
    if (g.proof !== undefined && !provenHeading) {
      provenHeading = true;
      list.append(h('li', { class: 'holes-divider' }, 'Proven unreachable (not holes)'));
    }
    const details = summarizeDetails(g.details.map((d) => d.replace(/^toggle /, '')));
    const where = `${name(g.file)}:${g.line}`;
    const button = h(
      'button',
      {
        class: `hole${g.proof !== undefined ? ' proven' : ''}`,
        type: 'button',
        'data-file': g.file,
        'data-line': g.line,
        title:
          g.proof !== undefined
            ? `Proven unreachable by ${g.proof}. Reveal ${g.file}:${g.line}`
            : `Reveal ${g.file}:${g.line}`,
        'aria-label': `${name(g.file)} line ${g.line}: ${describeKinds(g.kinds)}: ${g.details.join(', ')}${g.proof !== undefined ? ` (proven unreachable by ${g.proof})` : ''}. Reveal in editor.`,
      },
      h('span', { class: 'hole-where' }, where),
      h('span', { class: 'hole-kinds' }, describeKinds(g.kinds)),
      h('span', { class: 'hole-detail' }, details),
      g.proof !== undefined ? h('span', { class: 'hole-proof' }, `proven unreachable: ${g.proof}`) : null,
      g.formal !== undefined ? h('span', { class: 'hole-proof hole-formal' }, `formal engine: ${g.formal}`) : null,
      g.source ? h('code', { class: 'hole-source' }, g.source) : null,
    );
    button.addEventListener('click', () =>
      ctx.post({ type: 'revealHole', file: g.file, line: g.line, runId: run.info.runId }),
    );
    list.append(h('li', {}, button));
  }
  if (shown.length < groups.length) {
    const more = h('button', { class: 'link show-all', type: 'button' }, `Show all ${groups.length} lines`);
    more.addEventListener('click', onShowAll);
    list.append(h('li', {}, more));
  }
  return list;
}
