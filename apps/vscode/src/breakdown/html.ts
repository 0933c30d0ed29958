// The chart of an Enrich File run, from core's Breakdown: how the rows came out (the match rate) as
// one stacked bar, then a horizontal bar chart per coded field, each value with its count, its share
// and its likely meaning. Plain HTML and CSS: a chart library would add to the .vsix what a few
// <span>s draw, and nothing here moves or needs a script.
//
// Screen readers get the numbers from tables: the outcomes' table is the stacked bar's legend, and
// each field's chart has a table beside it; the bars are aria-hidden so nothing is read twice.
// Colours are the theme's chart colours, so the page follows light, dark and high-contrast themes.
// The page runs no script and loads nothing: its policy allows only its own style, by nonce. That is
// why bar widths are classes of that style and not style attributes, which a nonce does not cover.
import {
  type Breakdown,
  breakdownRows,
  type FieldBreakdown,
  type OutcomeShare,
  percentText,
} from '@enrich/core';
import { esc, pageStart } from '../html';

export interface BreakdownPage {
  /** "Email Verify: leads.csv". */
  readonly title: string;
  /** What the run did, in words, under the title. */
  readonly summary: string;
  readonly breakdown: Breakdown;
}

/** One row of a field's chart and table: a value, or the values past core's MAX_VALUES together. */
interface Bar {
  readonly label: string;
  readonly count: number;
  readonly share: number;
  readonly note: string;
  readonly kind: 'value' | 'unexpected' | 'other';
}

export function renderBreakdownPage(page: BreakdownPage, nonce: string): string {
  const widths = new Widths();
  const { breakdown: b } = page;
  const fields =
    b.fields.length === 0
      ? '<p class="none">This operation has no coded fields to count; the output file holds its answers.</p>'
      : b.fields.map((field, i) => fieldSection(field, i, b.answered, widths)).join('\n');
  const outcomes = outcomesSection(b, widths);
  return `${pageStart(page.title, { nonce, style: `${STYLE}${widths.css()}` })}
<h1>${esc(page.title)}</h1>
<p class="summary">${esc(page.summary)}</p>
${outcomes}
${fields}
</body>
</html>`;
}

/** The outcomes that occurred, and ok always (as core's outcomesText says them). */
function shownOutcomes(b: Breakdown): OutcomeShare[] {
  return b.outcomes.filter((o) => o.count > 0 || o.outcome === 'ok');
}

function outcomesSection(b: Breakdown, widths: Widths): string {
  const shown = shownOutcomes(b);
  const ok = b.outcomes.find((o) => o.outcome === 'ok');
  const headline = ok
    ? `${percentText(ok.share)} ok: ${num(ok.count)} of ${num(b.rows)} row${b.rows === 1 ? '' : 's'}`
    : `${num(b.rows)} rows`;
  const segments = shown
    .filter((o) => o.count > 0)
    .map(
      (o) =>
        `<span class="seg o-${o.outcome} ${widths.of(o.share)}" title="${esc(`${o.label} ${num(o.count)} (${percentText(o.share)})`)}"></span>`,
    )
    .join('');
  const rows = shown
    .map(
      (o) =>
        `<tr><th scope="row"><span class="swatch o-${o.outcome}" aria-hidden="true"></span>${esc(o.label)}</th><td class="n">${num(o.count)}</td><td class="n">${percentText(o.share)}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="outcomes">
<h2 id="outcomes">Match rate</h2>
<p class="headline">${esc(headline)}</p>
<div class="stack" aria-hidden="true">${segments}</div>
<table class="data outcomes"><caption>How the ${num(b.rows)} rows came out</caption>
<thead><tr><th scope="col">Outcome</th><th scope="col">Rows</th><th scope="col">Share</th></tr></thead>
<tbody>${rows}</tbody></table>
</section>`;
}

function barsOf(field: FieldBreakdown): Bar[] {
  return breakdownRows(field, num);
}

function fieldSection(field: FieldBreakdown, index: number, answered: number, widths: Widths): string {
  const id = `f${index}`;
  const name = `${field.column}${field.countedAs === 'bands' ? ' (score bands)' : ''}`;
  const bars = barsOf(field);
  if (bars.length === 0) {
    return `<section aria-labelledby="${id}"><h2 id="${id}">${esc(name)}</h2><p class="none">No answered rows: nothing to count.</p></section>`;
  }
  const chart = bars
    .map(
      (bar) =>
        `<div class="row ${bar.kind}"><span class="name"><span class="label">${esc(bar.label)}</span><span class="note">${esc(bar.note)}</span></span><span class="track"><span class="bar ${widths.of(bar.share)}${bar.count > 0 ? ' some' : ''}"></span></span><span class="n">${num(bar.count)}</span><span class="n pct">${percentText(bar.share)}</span></div>`,
    )
    .join('\n');
  const rows = bars
    .map(
      (bar) =>
        `<tr class="${bar.kind}"><th scope="row">${esc(bar.label)}</th><td class="n">${num(bar.count)}</td><td class="n">${percentText(bar.share)}</td><td class="note">${esc(bar.note)}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="${id}" class="field">
<h2 id="${id}">${esc(name)}</h2>
<p class="of">Of the ${num(answered)} answered row${answered === 1 ? '' : 's'}.</p>
<div class="pair">
<div class="chart" aria-hidden="true">
${chart}
</div>
<table class="data"><caption>${esc(field.column)}: each value, its rows and share</caption>
<thead><tr><th scope="col">Value</th><th scope="col">Rows</th><th scope="col">Share</th><th scope="col">Meaning</th></tr></thead>
<tbody>${rows}</tbody></table>
</div>
</section>`;
}

function num(n: number): string {
  return n.toLocaleString('en-US');
}

/** Bar widths as classes of the page's style (to the tenth of a percent), only those used. */
class Widths {
  private readonly used = new Set<number>();

  of(share: number): string {
    const tenths = Math.round(Math.min(1, Math.max(0, share)) * 1000);
    this.used.add(tenths);
    return `w${tenths}`;
  }

  css(): string {
    return [...this.used].map((t) => `.w${t}{width:${t / 10}%}`).join('');
  }
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 1.2em 2em; line-height: 1.4; }
h1 { font-size: 1.3em; margin: 0.8em 0 0.2em; }
h2 { font-size: 1.05em; margin: 1.4em 0 0.3em; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent)); padding-bottom: 0.2em; }
.summary, .of, .none, caption { color: var(--vscode-descriptionForeground); }
.summary { margin: 0 0 0.6em; }
.of { margin: 0 0 0.5em; }
.headline { margin: 0 0 0.4em; font-size: 1.1em; }
.stack { display: flex; height: 1.4em; max-width: 48em; background: var(--vscode-editorWidget-background, transparent); border: 1px solid var(--vscode-contrastBorder, transparent); }
.seg { display: block; height: 100%; min-width: 2px; }
.o-ok { background: var(--vscode-charts-green); }
.o-noMatch { background: var(--vscode-charts-yellow); }
.o-unreadable { background: var(--vscode-charts-orange); }
.o-invalid { background: var(--vscode-charts-purple); }
.o-errors { background: var(--vscode-charts-red); }
.o-notSent { background: var(--vscode-charts-lines, var(--vscode-descriptionForeground)); }
.swatch { display: inline-block; width: 0.8em; height: 0.8em; margin-right: 0.5em; vertical-align: -0.05em; border: 1px solid var(--vscode-contrastBorder, transparent); }
.pair { display: flex; flex-wrap: wrap; gap: 1em 2.5em; align-items: flex-start; }
.chart { flex: 3 1 26em; min-width: 0; display: grid; grid-template-columns: fit-content(16em) minmax(8em, 1fr) max-content max-content; gap: 0.45em 0.6em; align-items: center; }
.row { display: contents; }
.name { overflow-wrap: anywhere; }
.label { display: block; font-family: var(--vscode-editor-font-family); }
.name .note { display: block; font-size: 0.9em; }
.track { display: block; height: 1.1em; background: var(--vscode-editorWidget-background, transparent); }
.bar { display: block; height: 100%; background: var(--vscode-charts-blue); border: 1px solid var(--vscode-contrastBorder, transparent); box-sizing: border-box; }
.bar.w0 { border: 0; }
.bar.some { min-width: 2px; }
.unexpected .bar { background: var(--vscode-charts-orange); }
.other .bar { background: var(--vscode-charts-lines, var(--vscode-descriptionForeground)); }
.n { text-align: right; font-variant-numeric: tabular-nums; }
.pct { color: var(--vscode-descriptionForeground); }
.note { font-style: italic; color: var(--vscode-textLink-foreground); }
.unexpected .note { font-style: normal; color: var(--vscode-editorWarning-foreground); }
.other .note { font-style: normal; color: var(--vscode-descriptionForeground); }
table.data { flex: 2 1 18em; border-collapse: collapse; font-size: 0.92em; }
table.outcomes { margin-top: 0.6em; }
caption { text-align: left; padding-bottom: 0.2em; }
th, td { text-align: left; padding: 0.1em 1em 0.1em 0; vertical-align: top; }
thead th { font-weight: 600; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent)); }
tbody th { font-weight: normal; font-family: var(--vscode-editor-font-family); overflow-wrap: anywhere; }
`;
