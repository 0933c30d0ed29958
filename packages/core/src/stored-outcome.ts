// What every client that keeps answers (the engine's journal, Sheets' cache and hidden sheet, VS
// Code's history) trusts when it reads one back: an outcome whole, as the response reader made it.
// Anything else (a hand edit, a torn write, another writer) is not ours and is skipped: a cache then
// asks again, a history leaves the entry out, and nothing downstream makes up a missing part.
import type { Outcome } from './response.js';

export function isStoredOutcome(value: unknown): value is Outcome {
  if (!isObject(value)) return false;
  switch (value.kind) {
    case 'record':
      return (
        isObject(value.record) &&
        isObject(value.extra) &&
        Array.isArray(value.mismatches) &&
        typeof value.raw === 'string'
      );
    case 'no-match':
      return true;
    case 'unreadable':
      return typeof value.raw === 'string' && typeof value.reason === 'string';
    case 'error':
      return (
        isObject(value.error) &&
        typeof value.error.code === 'string' &&
        typeof value.error.message === 'string'
      );
    default:
      return false;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
