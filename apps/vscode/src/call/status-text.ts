// A call's outcome in a few words, as the log, the status bar and the History view show it.
import type { HistoryEntry } from '../history';

/**
 * "200", "200 (2 not as documented)", "204 no match", "200 paid, unreadable", "no answer, may have
 * been paid", "401 error", "network error".
 */
export function statusText(entry: HistoryEntry): string {
  const { outcome } = entry;
  if (outcome.kind === 'record') {
    const count = outcome.mismatches?.length ?? 0;
    return count === 0 ? '200' : `200 (${count} not as documented)`;
  }
  if (outcome.kind === 'no-match') return '204 no match';
  if (outcome.kind === 'unreadable') return '200 paid, unreadable';
  if (outcome.error.code === 'unanswered') return 'no answer, may have been paid';
  return outcome.error.status !== undefined ? `${outcome.error.status} error` : `${outcome.error.code} error`;
}
