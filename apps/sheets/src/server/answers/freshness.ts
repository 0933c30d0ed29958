// How long a paid answer is reused: a setting of whoever pays for it ("Reuse kept answers for", 30
// days by default). Formulas spend the spreadsheet owner's key and, being custom functions, read the
// owner's user properties, so they follow the owner's setting; a sidebar run spends its user's key
// and follows that user's. It lives in each user's own properties, never in the document's: there,
// any editor could change what the owner's key pays for (a collaborator setting 1 day made the
// owner's formulas buy every answer again two days later).
//
// The hidden sheet is shared by everyone's formulas and runs, so it keeps every answer someone may
// still reuse: up to the longest setting, MAX_ANSWER_DAYS; each reader applies its own setting.

export const ANSWER_DAYS_PROPERTY = 'enrich.answerDays';
export const DEFAULT_ANSWER_DAYS = 30;
export const MAX_ANSWER_DAYS = 365;
const DAY_MS = 86_400_000;

/** The stored setting, or the default when it is absent or not a whole number of 1 to 365 days. */
export function parseAnswerDays(text: string | null | undefined): number {
  const days = text === null || text === undefined || text === '' ? Number.NaN : Number(text);
  return Number.isInteger(days) && days >= 1 && days <= MAX_ANSWER_DAYS ? days : DEFAULT_ANSWER_DAYS;
}

/** The setting as it is stored: a number of days, or null to go back to the default ("" or null). */
export function checkAnswerDays(value: unknown): string | null {
  if (value === '' || value === null) return null;
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > MAX_ANSWER_DAYS) {
    throw new Error(`Keep answers for 1 to ${MAX_ANSWER_DAYS} days; got ${String(value)}`);
  }
  return String(days);
}

/** Answers paid for at or before this time (ms) are too old to reuse under a setting of `days`. */
export function freshSince(days: number): number {
  return Date.now() - days * DAY_MS;
}

/** Answers paid for after this time (ms) may still be reused by someone: the hidden sheet keeps them. */
export function keepSince(): number {
  return freshSince(MAX_ANSWER_DAYS);
}
