// The last line of defence for the key: every string the add-on writes to cells, returns to the
// sidebar, throws as an error or logs passes core's scrubber, which replaces the key (also in its
// JSON-escaped and URL-encoded forms) with "[key hidden]". Messages are built never to hold the
// key; this catches what a library or a service might echo back.
import { createScrubber } from '@enrich/core/universal';
import { readSettings } from './settings.js';

export type Scrub = (text: string) => string;

/**
 * A scrubber for the key this execution uses (the user's; in a custom function, the spreadsheet
 * owner's), plus any other secrets given (a key being saved).
 */
export function currentScrubber(more: readonly string[] = []): Scrub {
  const secrets = [...more];
  try {
    const key = readSettings(PropertiesService.getUserProperties()).apiKey;
    if (key) secrets.push(key);
  } catch {
    // No properties in this mode (AuthMode.NONE): there is no key to hide either.
  }
  return createScrubber(secrets);
}

/** Every string inside plain data (what crosses google.script.run, a row of cells), scrubbed. */
export function scrubDeep<T>(value: T, scrub: Scrub): T {
  if (typeof value === 'string') return scrub(value) as T;
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, scrub)) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(value)) out[name] = scrubDeep(item, scrub);
    return out as T;
  }
  return value;
}

/** An error whose message is scrubbed; the same error when there was nothing to hide. */
export function scrubError(error: unknown, scrub: Scrub): unknown {
  if (!(error instanceof Error)) return typeof error === 'string' ? scrub(error) : error;
  const message = scrub(error.message);
  if (message === error.message) return error;
  return new Error(message);
}

/**
 * A server function whose result and errors are scrubbed. `secretsOf` names secrets in the
 * arguments (the key being saved), which the stored settings do not hold yet or any more.
 */
export function scrubbing<A extends unknown[], R>(
  fn: (...args: A) => R,
  secretsOf: (...args: A) => readonly string[] = () => [],
): (...args: A) => R {
  return (...args: A): R => {
    let result: R;
    try {
      result = fn(...args);
    } catch (error) {
      // Only what carries text can carry the key; anything else is passed on untouched.
      if (!(error instanceof Error) && typeof error !== 'string') throw error;
      throw scrubError(error, currentScrubber(secretsOf(...args)));
    }
    return scrubDeep(result, currentScrubber(secretsOf(...args)));
  };
}

/** A message for Logger or console, scrubbed. */
export function logText(text: string): string {
  return currentScrubber()(text);
}
