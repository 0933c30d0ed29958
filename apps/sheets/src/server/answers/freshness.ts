// How long a paid answer stays good for reuse: 30 days by default, a setting of the document (every
// editor's formulas share one hidden sheet of answers, so they share its freshness). Kept in
// document properties: not secret, readable by custom functions, writable only from the menu or
// sidebar.

const PROP_ANSWER_DAYS = 'enrich.answerDays';
export const DEFAULT_ANSWER_DAYS = 30;
export const MAX_ANSWER_DAYS = 365;
const DAY_MS = 86_400_000;

export function answerDays(): number {
  const text = PropertiesService.getDocumentProperties().getProperty(PROP_ANSWER_DAYS);
  const days = text === null ? Number.NaN : Number(text);
  return Number.isInteger(days) && days >= 1 && days <= MAX_ANSWER_DAYS ? days : DEFAULT_ANSWER_DAYS;
}

/** Answers paid for at or before this time (ms) are too old to reuse. */
export function freshSince(days = answerDays()): number {
  return Date.now() - days * DAY_MS;
}

/** Saves the setting; "" or null goes back to the default. */
export function saveAnswerDays(value: unknown): number {
  const props = PropertiesService.getDocumentProperties();
  if (value === '' || value === null) {
    props.deleteProperty(PROP_ANSWER_DAYS);
    return DEFAULT_ANSWER_DAYS;
  }
  const days = Number(value);
  if (!Number.isInteger(days) || days < 1 || days > MAX_ANSWER_DAYS) {
    throw new Error(`Keep answers for 1 to ${MAX_ANSWER_DAYS} days; got ${String(value)}`);
  }
  props.setProperty(PROP_ANSWER_DAYS, String(days));
  return days;
}
