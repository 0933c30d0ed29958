// What came back, when a run ends: the match rate, then one set of bars per coded column the run
// wrote (value, count, share, likely meaning), from core's breakdown and in core's words
// (percentText, valueNote). Plain HTML and CSS: a chart library would weigh more than the whole
// sidebar, and 300 px holds a bar per line well.
//
// Each set is a list labelled by its heading, each item read as "VERIFIED 141 (49%) likely: the
// mailbox exists"; the bars are aria-hidden (the numbers say it all). Every value came from the
// service or the sheet, so everything is put in with textContent, never as markup.
import { breakdownRows, type OutcomeShare, percentText } from '@enrich/core/universal';
import type { RunBreakdown } from '../server/run/types.js';
import { $, number, plural } from './dom.js';

interface Bar {
  readonly label: string;
  readonly count: number;
  readonly share: number;
  readonly note: string;
  /** A class from a fixed set (the outcome's), never a value. */
  readonly tone?: string;
}

const OUTCOME_TONES: Readonly<Record<OutcomeShare['outcome'], string>> = {
  ok: 'bar-ok',
  noMatch: 'bar-none',
  unreadable: 'bar-warn',
  invalid: 'bar-warn',
  errors: 'bar-error',
  notSent: 'bar-none',
};

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A heading and its list of bars; the list is named by the heading. */
function barSet(box: HTMLElement, id: string, heading: string, bars: readonly Bar[], caption = ''): void {
  const title = element('h3', 'bars-heading', heading);
  title.id = id;
  box.append(title);
  if (caption) box.append(element('p', 'gray', caption));
  const list = element('ul', 'bars');
  list.setAttribute('aria-labelledby', id);
  for (const bar of bars) {
    const item = element('li', 'bar-item');
    item.append(
      element('span', 'bar-label', bar.label),
      element('span', 'bar-count', ` ${number(bar.count)} (${percentText(bar.share)})`),
    );
    const track = element('span', 'bar-track');
    track.setAttribute('aria-hidden', 'true');
    if (bar.count > 0) {
      // A number computed here, never a value; the CSS gives a share that is not nothing a sliver.
      const fill = element('span', `bar-fill ${bar.tone ?? ''}`);
      fill.style.width = `${Math.min(100, bar.share * 100).toFixed(1)}%`;
      track.append(fill);
    }
    item.append(track);
    if (bar.note) item.append(element('span', 'bar-note', ` ${bar.note}`));
    list.append(item);
  }
  box.append(list);
}

/** Shows the breakdown of a finished run; null hides it (a new run starts). */
export function renderBreakdown(breakdown: RunBreakdown | null): void {
  const section = $('breakdown-section');
  const box = $('breakdown');
  box.textContent = '';
  section.hidden = breakdown === null;
  if (!breakdown) return;
  const ok = breakdown.outcomes.find((o) => o.outcome === 'ok');
  barSet(
    box,
    'bars-outcomes',
    `Match rate: ${percentText(ok?.share ?? 0)} ok`,
    breakdown.outcomes
      .filter((o) => o.count > 0 || o.outcome === 'ok')
      .map((o) => ({
        label: o.label,
        count: o.count,
        share: o.share,
        note: '',
        tone: OUTCOME_TONES[o.outcome],
      })),
    `Of ${plural(breakdown.rows, 'row')} with input` +
      (breakdown.emptyRows > 0 ? `; ${plural(breakdown.emptyRows, 'empty row')} skipped.` : '.'),
  );
  breakdown.fields.forEach((field, i) => {
    const bars: Bar[] = breakdownRows(field, number);
    const heading = field.countedAs === 'bands' ? `${field.column} (score bands)` : field.column;
    if (bars.length === 0) {
      box.append(element('h3', 'bars-heading', heading), element('p', 'gray', 'No answered rows.'));
      return;
    }
    barSet(box, `bars-field-${i}`, heading, bars, `Of ${plural(breakdown.answered, 'answered row')}.`);
  });
  if (breakdown.notWritten.length > 0) {
    box.append(
      element(
        'p',
        'gray',
        `Not among the output columns: ${breakdown.notWritten.join(', ')}. Choose them to see their values here.`,
      ),
    );
  }
}
