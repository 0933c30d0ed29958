// This user's spend in this spreadsheet this month (the server's spend record, run/spend.ts): a
// total, and its parts by operation. Formulas' spend is not in it; the section says so beside the number.
import type { SpendInfo } from '../server/run/spend.js';
import { $, number, plural } from './dom.js';

/** "November 2026" for "2026-11", in UTC as the record counts months. */
function monthName(month: string): string {
  const [year, m] = month.split('-').map(Number);
  const date = new Date(Date.UTC(year ?? 1970, (m ?? 1) - 1, 1));
  return date.toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/** Shows the spend; null leaves what is shown (a chunk that neither spent nor finished). */
export function renderSpend(info: SpendInfo | null): void {
  if (!info) return;
  $('spend-text').textContent =
    `${monthName(info.month)}: ${plural(info.transactions, 'transaction')}` +
    (info.parts.length > 0
      ? ` (${info.parts.map((p) => `${p.label} ${number(p.transactions)}`).join(' · ')})`
      : '') +
    '.';
}
