// What the PostgreSQL store does when the database fails under it (restarted, failed over, cut):
// - the pool drops broken connections and opens new ones at the next query (pool 'error' events of
//   idle connections are swallowed: they are the pool's to handle, and an unhandled one would kill
//   the process);
// - an operation that is safe to run twice (get, claim, put, release, reading the spend) is tried
//   once more after `retryDelayMs` when it met a connection failure: a restart takes about a second;
// - reserve and refund are never tried again: the first try may have committed before the
//   connection broke, and a second would count it twice;
// - what still fails throws StoreUnavailable, saying where (no password) and the code; never a row,
//   a key or the statement's parameters (the driver's `detail` may quote a row: it is left out).
import { abortableSleep } from '@enrich/core';
import { StoreUnavailable } from './store-front.js';

/** SQLSTATEs of a connection that broke or a server that is shutting down or starting. */
const CONNECTION_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function isConnectionFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (code !== undefined) return code.startsWith('08') || CONNECTION_STATES.has(code) || NODE_CODES.has(code);
  // The driver's own errors when a connection ends under a query carry no code.
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect/i.test(
    message,
  );
}

export function unavailable(where: string, what: string, error: unknown): StoreUnavailable {
  if (error instanceof StoreUnavailable) return error;
  const code = codeOf(error);
  // Data exceptions and constraint violations may quote a value (a key): their text is left out.
  const quotes = code !== undefined && (code.startsWith('22') || code.startsWith('23'));
  const message = quotes
    ? 'the database refused the data'
    : error instanceof Error
      ? error.message
      : String(error);
  return new StoreUnavailable(`${where}: ${what} failed: ${message}${code ? ` (${code})` : ''}`, code);
}

/** Runs `operation`; once more after `delayMs` if it met a connection failure; wraps what still fails. */
export async function retriedOnce<T>(
  where: string,
  what: string,
  delayMs: number,
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!isConnectionFailure(error)) throw unavailable(where, what, error);
  }
  await abortableSleep(delayMs);
  try {
    return await operation();
  } catch (error) {
    throw unavailable(where, what, error);
  }
}

/** Runs `operation` once; wraps its failure. */
export async function once<T>(where: string, what: string, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw unavailable(where, what, error);
  }
}
