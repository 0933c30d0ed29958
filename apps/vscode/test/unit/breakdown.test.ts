// The chart of an Enrich File run (breakdown-html.ts) from core's Breakdown: every value with its
// count, share and likely meaning, in the chart and in the table beside it; bar widths that are the
// shares; a page that runs no script and loads nothing; what the service sent escaped. Then a real
// run against the sandbox: the chart opens beside the output, and its numbers are the output's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BulkSummary } from '@enrich/bulk';
import { type Breakdown, BreakdownTally, getOperation, type OutcomeCounts, percentText } from '@enrich/core';
import { afterEach, describe, expect, it } from 'vitest';
import { renderBreakdownPage } from '../../src/breakdown/html';
import { BREAKDOWN_VIEW_TYPE } from '../../src/breakdown/view';
import { COMMAND } from '../../src/manifest';
import { okValueCounts } from '../csv-records';
import { commands, reply, Uri, ui } from '../vscode-stub';
import { activateWithSandbox, closeHarnesses, type Harness, tempDir } from './harness';

let harness: Harness | undefined;
afterEach(closeHarnesses);

const NONCE = 'bm9uY2Utb2YtdGhlLXRlc3Q=';
const none: OutcomeCounts = { ok: 0, noMatch: 0, unreadable: 0, invalid: 0, errors: 0, notSent: 0 };

/** A breakdown of `id` whose ok rows hold these coded values (one array per row), and other outcomes. */
function breakdownOf(
  id: string,
  rows: readonly (readonly string[])[],
  outcomes: Partial<OutcomeCounts> = {},
) {
  const tally = new BreakdownTally(getOperation(id as 'email-verify'));
  for (const values of rows) tally.add(values);
  return tally.result({ ...none, ...outcomes, ok: rows.length });
}

const times = (n: number, values: readonly string[]) => Array.from({ length: n }, () => values);

const decode = (html: string) =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code)))
    .trim();

type Row = [label: string, count: string, share: string, note: string];

/** The chart's rows of each field (aria-hidden), as text. */
function chartRows(html: string): Row[][] {
  return [...html.matchAll(/<div class="chart" aria-hidden="true">([\s\S]*?)<\/div>\n<table/g)].map((chart) =>
    [
      ...(chart[1] ?? '').matchAll(
        /<span class="label">(.*?)<\/span><span class="note">(.*?)<\/span><\/span><span class="track">.*?<span class="n">(.*?)<\/span><span class="n pct">(.*?)<\/span>/g,
      ),
    ].map((m) => [decode(m[1] ?? ''), decode(m[3] ?? ''), decode(m[4] ?? ''), decode(m[2] ?? '')]),
  );
}

/** The rows of each field's table, as text. */
function tableRows(html: string): Row[][] {
  const fields = [...html.matchAll(/<section aria-labelledby="f\d+" class="field">([\s\S]*?)<\/section>/g)];
  return fields.map((section) =>
    [
      ...(section[1] ?? '').matchAll(
        /<tr class="\w+"><th scope="row">(.*?)<\/th><td class="n">(.*?)<\/td><td class="n">(.*?)<\/td><td class="note">(.*?)<\/td><\/tr>/g,
      ),
    ].map((m) => [decode(m[1] ?? ''), decode(m[2] ?? ''), decode(m[3] ?? ''), decode(m[4] ?? '')]),
  );
}

const page = (breakdown: Breakdown, title = 'Email Verify: leads.csv') =>
  renderBreakdownPage({ title, summary: '14 rows; 11 transactions spent.', breakdown }, NONCE);

// 11 answered rows of Email Verify, and 2 invalid, 1 no match.
const emailVerify = breakdownOf(
  'email-verify',
  [...times(6, ['VERIFIED']), ...times(2, ['CATCHALL']), [''], ['NOTACODE'], ['UNDELIVERABLE']],
  { invalid: 2, noMatch: 1 },
);

describe('the chart of a run', () => {
  it('renders every value with its count and percentage, and its likely meaning or "not a known code"', () => {
    const [chart] = chartRows(page(emailVerify));
    expect(chart).toEqual([
      ['VERIFIED', '6', '55%', 'likely: the mailbox exists'],
      ['CATCHALL', '2', '18%', 'likely: the domain accepts any address'],
      ['(empty)', '1', '9%', ''],
      ['NOTACODE', '1', '9%', 'not a known code'],
      ['UNDELIVERABLE', '1', '9%', 'likely: mail to it would bounce'],
    ]);
  });

  it('has a table beside each chart with the same numbers; the bars are hidden from screen readers', () => {
    const html = page(emailVerify);
    expect(tableRows(html)).toEqual(chartRows(html));
    expect(html).toContain('<caption>Result: each value, its rows and share</caption>');
    expect(html).toContain(
      '<thead><tr><th scope="col">Value</th><th scope="col">Rows</th><th scope="col">Share</th><th scope="col">Meaning</th></tr></thead>',
    );
    // The outcomes: a stacked bar hidden from screen readers, and a table that is also its legend.
    expect(html).toMatch(/<div class="stack" aria-hidden="true">/);
    const outcomes = [
      ...html.matchAll(
        /<tr><th scope="row"><span class="swatch o-(\w+)" aria-hidden="true"><\/span>(.*?)<\/th><td class="n">(.*?)<\/td><td class="n">(.*?)<\/td><\/tr>/g,
      ),
    ].map((m) => [m[1], m[2], m[3], m[4]]);
    expect(outcomes).toEqual([
      ['ok', 'ok', '11', '79%'],
      ['noMatch', 'no match', '1', '7%'],
      ['invalid', 'invalid', '2', '14%'],
    ]);
    expect(decode(html)).toContain('79% ok: 11 of 14 rows');
  });

  it('draws each bar as wide as its share, with classes of its own nonce style: no script, nothing loaded', () => {
    const html = page(emailVerify);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1];
    expect(csp).toBe(`default-src 'none'; style-src 'nonce-${NONCE}';`);
    expect(html).not.toMatch(/<script|\son\w+=|\sstyle=|\s(src|href)=/i);
    expect([...html.matchAll(/<style([^>]*)>/g)].map((m) => m[1])).toEqual([` nonce="${NONCE}"`]);
    const style = /<style[^>]*>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    const widthOf = (cls: string) => Number(new RegExp(`\\.${cls}\\{width:([\\d.]+)%\\}`).exec(style)?.[1]);
    const bars = [...html.matchAll(/<span class="bar (w\d+)( some)?"><\/span>/g)].map((m) =>
      widthOf(m[1] ?? ''),
    );
    const shares = emailVerify.fields[0]?.values.map((v) => Math.round(v.share * 1000) / 10);
    expect(bars).toEqual(shares);
    const segments = [...html.matchAll(/<span class="seg o-\w+ (w\d+)"/g)].map((m) => widthOf(m[1] ?? ''));
    expect(segments).toEqual([78.6, 7.1, 14.3]);
    // The theme's chart colours, never a colour of its own.
    expect(style).toContain('var(--vscode-charts-blue)');
    expect(style).toContain('var(--vscode-charts-green)');
    expect(style).not.toMatch(/#[0-9a-f]{3,6}\b|rgb\(/i);
  });

  it('counts the values past the first twelve together as "other"', () => {
    const rows = Array.from({ length: 15 }, (_, i) =>
      times(15 - i, [`CODE${String(i).padStart(2, '0')}`]),
    ).flat();
    const b = breakdownOf('email-verify', rows);
    const [chart] = chartRows(page(b));
    expect(chart).toHaveLength(13);
    expect(chart?.[0]).toEqual(['CODE00', '15', percentText(15 / 120), 'not a known code']);
    expect(chart?.at(-1)).toEqual(['other', String(3 + 2 + 1), percentText(6 / 120), '3 more values']);
    expect(tableRows(page(b))).toEqual([chart]);
  });

  it('shows scores in bands, and every coded field of the operation', () => {
    const b = breakdownOf('id-verify', [
      ['PASS', 'PASS', 'FAIL', '85'],
      ['PASS', 'FAIL', 'FAIL', '12'],
      ['FAIL', 'FAIL', 'FAIL', ''],
    ]);
    const html = page(b, 'ID Verify: people.csv');
    expect(decode(html)).toContain('IDVerifyScore (score bands)');
    const charts = chartRows(html);
    expect(charts).toHaveLength(4);
    expect(charts[3]?.map((r) => [r[0], r[1]])).toEqual([
      ['0–19', '1'],
      ['80–100', '1'],
      ['(not computed)', '1'],
    ]);
    expect(charts[0]?.map((r) => [r[0], r[1]])).toEqual([
      ['PASS', '2'],
      ['FAIL', '1'],
    ]);
  });

  it('says so when there is nothing to count', () => {
    const nothing = breakdownOf('email-verify', [], { invalid: 3 });
    expect(decode(page(nothing))).toContain('No answered rows: nothing to count.');
    const append = breakdownOf('email-append', [[]]);
    expect(decode(page(append, 'Email Append: leads.csv'))).toContain(
      'This operation has no coded fields to count',
    );
  });

  it('escapes what the service sent, and the names of the files', () => {
    const hostile = ['<script>alert(1)</script>', '"><img src=x onerror=alert(2)>', "it's & <b>"];
    const b = breakdownOf(
      'email-verify',
      hostile.map((v) => [v]),
    );
    const html = renderBreakdownPage(
      { title: 'Email Verify: <script>x</script>.csv', summary: 'the result is <i>.csv', breakdown: b },
      NONCE,
    );
    expect(html).not.toMatch(/<script|<img|<b>|<i>/);
    expect(html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    const [chart] = chartRows(html);
    expect(chart?.map((r) => r[0]).sort()).toEqual([...hostile].sort());
    expect(tableRows(html)).toEqual([chart]);
  });
});

// ---- after a real run ----

describe('after an Enrich File run', () => {
  it('opens the chart beside the output; each value counts the rows of the output that hold it', async () => {
    harness = await activateWithSandbox();
    const emails = Array.from({ length: 30 }, (_, i) => `lead.${i}@example.com`);
    const dir = tempDir('enrich-breakdown-');
    const path = join(dir, 'emails.csv');
    writeFileSync(path, `${['Email', ...emails, 'not-an-email', emails[3]].join('\n')}\n`);
    reply({ pick: 'Email Verify' }, { pick: '$(play) Enrich: spend 30 transactions' });
    ui.answer = (m) => (m.modal ? m.actions[0] : undefined);
    const summary = await commands.executeCommand<BulkSummary>(COMMAND.enrichCsv, Uri.file(path));
    expect(summary.completed).toBe(true);

    const panel = ui.panels.find((p) => p.viewType === BREAKDOWN_VIEW_TYPE);
    expect(panel?.title).toBe('Email Verify: emails.csv');
    expect(panel?.options).toMatchObject({ enableScripts: false, localResourceRoots: [] });
    const html = panel?.webview.html ?? '';
    expect(decode(html)).toContain('32 rows; 30 transactions spent, 0 answers from the cache');

    const counts = okValueCounts(readFileSync(join(dir, 'emails.email-verify.csv'), 'utf8'), 'Result');
    const [chart] = chartRows(html);
    expect(new Map(chart?.map((r) => [r[0], Number(r[1])]))).toEqual(counts);
    expect(counts.size).toBeGreaterThan(1);
    expect(tableRows(html)).toEqual([chart]);
    // 31 ok rows (the repeated address counted twice), 1 invalid.
    expect(decode(html)).toContain('97% ok: 31 of 32 rows');
  });

  it('shows no chart for a run that did not complete', async () => {
    harness = await activateWithSandbox();
    harness.server.sandbox.configure({ latencyMs: 150 });
    const path = join(tempDir('enrich-breakdown-'), 'emails.csv');
    const emails = Array.from({ length: 40 }, (_, i) => `lead.${i}@example.com`);
    writeFileSync(path, `${['Email', ...emails].join('\n')}\n`);
    reply({ pick: 'Email Verify' }, { pick: '$(play) Enrich: spend 40 transactions' });
    ui.answer = (m) => (m.modal ? m.actions[0] : undefined);
    ui.onProgress = (record) => setTimeout(() => record.source.cancel(), 200);
    const summary = await commands.executeCommand<BulkSummary>(COMMAND.enrichCsv, Uri.file(path));
    expect(summary.completed).toBe(false);
    expect(ui.panels.filter((p) => p.viewType === BREAKDOWN_VIEW_TYPE)).toEqual([]);
  });
});
