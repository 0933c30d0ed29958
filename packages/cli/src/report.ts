// The closing summary of a bulk run or a dry run, for people (JSON is the summary object itself).
import type { BulkSummary } from './bulk.js';
import type { DryRunSummary } from './dry-run.js';
import { printable, twoColumns } from './terminal-text.js';

const n = (value: number) => value.toLocaleString('en-US');

export function bulkReport(title: string, s: BulkSummary): string {
  const rows: [string, string][] = [
    ['rows', n(s.rows)],
    ['distinct requests', `${n(s.distinct)} (${n(s.fromCache)} answered from the cache)`],
    ['transactions spent', n(s.transactions)],
    ['ok', n(s.ok)],
    ['no match', n(s.noMatch)],
    ['invalid', s.blank > 0 ? `${n(s.invalid)} (${n(s.blank)} blank)` : n(s.invalid)],
    ['errors', n(s.errors)],
  ];
  if (s.notSent > 0) rows.push(['not sent', n(s.notSent)]);
  if (s.attempts > s.requests) rows.push(['retries', n(s.attempts - s.requests)]);
  if (s.throttled > 0) rows.push(['429 waits', n(s.throttled)]);
  rows.push(['time', seconds(s.elapsedMs)]);
  const lines = [`${title}: ${s.input} -> ${s.output}`, indent(twoColumns(rows))];
  lines.push(...examples(s.invalidExamples));
  lines.push(`  answer cache: ${s.cache}`);
  if (s.stopped)
    lines.push(`  stopped sending: ${stopText(s.stopped)}; run the same command again to carry on`);
  return lines.join('\n');
}

export function dryRunReport(title: string, s: DryRunSummary, budget: number | undefined): string {
  const rows: [string, string][] = [
    ['rows', n(s.rows)],
    ['invalid rows', s.blank > 0 ? `${n(s.invalid)} (${n(s.blank)} blank)` : n(s.invalid)],
    ['distinct valid requests', n(s.distinct)],
    ['already in the cache', n(s.cached)],
    ['transactions to spend', n(s.transactions)],
  ];
  const mapped = Object.entries(s.mapping)
    .map(([field, column]) => `${field} <- "${printable(column)}"`)
    .join(', ');
  const lines = [
    `Dry run of ${title} on ${s.input} (nothing sent)`,
    `  columns: ${mapped}`,
    indent(twoColumns(rows)),
    ...examples(s.invalidExamples),
    `  answer cache: ${s.cache}`,
  ];
  if (budget !== undefined && s.distinct - s.cached > budget) {
    lines.push(
      `  --max-transactions ${n(budget)} would stop the run before ${n(s.distinct - s.cached - budget)} of them`,
    );
  }
  return lines.join('\n');
}

function examples(list: readonly { row: number; message: string }[]): string[] {
  if (list.length === 0) return [];
  return [
    '  first invalid rows (blank ones aside):',
    ...list.map((e) => `    row ${e.row}: ${printable(e.message)}`),
  ];
}

function stopText(reason: string): string {
  switch (reason) {
    case 'budget':
      return 'the --max-transactions budget is spent';
    case 'auth':
      return 'the API key was refused (401)';
    case 'allowance':
      return 'the transaction allowance is used up (429)';
    case 'service':
      return 'the service kept failing';
    default:
      return reason;
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 1000).toFixed(1)} s`;
}
