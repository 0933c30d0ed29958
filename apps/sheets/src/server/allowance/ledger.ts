// What each key has spent in this spreadsheet today and this month, shared by every execution that
// spends: formulas (many at once), sidebar chunks and the automation. A purchase first claims its
// transactions here under the document lock, so that executions at the same moment can never
// together pass the allowance; what it did not spend after all (an error, no time left) it gives
// back. A claim that is never given back (an execution stopped at its limit) stays counted: the
// count may run high, never low.
//
// Where: custom functions can write nothing but the cache, so the count lives in the document cache,
// in three copies (the cache may drop any item at any time), each the whole ledger with a sequence
// number; a reader takes the copy with the highest one. Executions that may write properties also
// keep it in a document property, which every reader takes as a floor when the copies are gone
// (keep.ts folds it in at every writable action). Keys are told apart by a digest of the key and the
// spreadsheet: no key, input or name is kept. Days and months are UTC, as the provider invoices.
import { activeSpreadsheetId } from '../active-spreadsheet.js';
import { underDocumentLock } from '../document-lock.js';
import { type Limits, limitsOf } from './setting.js';

const COPIES = ['allowance:0', 'allowance:1', 'allowance:2'];
/** The cache items a claim reads: a caller that holds the lock reads them with its own (claimFrom). */
export const LEDGER_KEYS: readonly string[] = COPIES;
const PROPERTY = 'enrich.allowance.spent';
const TTL_SECONDS = 21_600;

/** [UTC day, spent that day, UTC month, spent that month]. */
type Entry = [string, number, string, number];
interface Ledger {
  seq: number;
  payers: Record<string, Entry>;
  /**
   * The spreadsheet's id, which formulas need (to name the payer and find its allowance) and which
   * costs them a slow Spreadsheet call to ask for; the cache is per document, so it is this one's.
   */
  doc?: string;
}

export interface Spent {
  readonly today: number;
  readonly thisMonth: number;
}

/** Why a claim granted less than asked: the day's or the month's allowance, or no lock to claim under. */
export type Held = 'day' | 'month' | 'busy';

/** Who pays, as the ledger names it: a digest of the spreadsheet and the key (never the key). */
export function payerOf(spreadsheetId: string, apiKey: string): string {
  const digest = Utilities.computeDigest(
    Utilities.DigestAlgorithm.SHA_256,
    `allowance\n${spreadsheetId}\n${apiKey}`,
    Utilities.Charset.UTF_8,
  );
  return Utilities.base64EncodeWebSafe(digest.slice(0, 9));
}

function periods(now = Date.now()): { day: string; month: string } {
  const iso = new Date(now).toISOString();
  return { day: iso.slice(0, 10), month: iso.slice(0, 7) };
}

function parse(text: string | null | undefined): Ledger | null {
  if (!text) return null;
  try {
    const value = JSON.parse(text) as Ledger;
    return Number.isInteger(value?.seq) && value.payers && typeof value.payers === 'object' ? value : null;
  } catch {
    return null;
  }
}

/**
 * The newest of the cache's copies and the document property (which executions that may write keep,
 * always together with the copies: a copy left in the cache is never older than it, so the property
 * is read only when every copy is gone, or to fold them, `withProperty`).
 */
function readLedger(
  cache: GoogleAppsScript.Cache.Cache | null,
  withProperty = false,
  read?: Readonly<Record<string, string>>,
): { ledger: Ledger; stale: boolean } {
  const copies = read ?? (cache ? cache.getAll(COPIES) : {});
  const found = COPIES.map((key) => parse(copies[key]));
  const anyCopy = found.some((ledger) => ledger !== null);
  const stored =
    withProperty || !anyCopy ? parse(PropertiesService.getDocumentProperties().getProperty(PROPERTY)) : null;
  let best: Ledger = { seq: 0, payers: {} };
  for (const ledger of [...found, stored]) if (ledger && ledger.seq > best.seq) best = ledger;
  // A copy missing or behind: written again at the next write (or fold).
  const stale =
    found.some((ledger) => !ledger || ledger.seq < best.seq) ||
    (withProperty && (stored?.seq ?? 0) < best.seq);
  return { ledger: best, stale };
}

function spentIn(ledger: Ledger, payer: string, now = Date.now()): Spent {
  const entry = ledger.payers[payer];
  const { day, month } = periods(now);
  return {
    today: entry && entry[0] === day ? entry[1] : 0,
    thisMonth: entry && entry[2] === month ? entry[3] : 0,
  };
}

/** The copies to put for `ledger`; the property is written here when `persist`. */
function ledgerItems(ledger: Ledger, persist: boolean, doc?: string): Record<string, string> {
  const text = JSON.stringify({ ...ledger, doc: ledger.doc ?? doc ?? activeSpreadsheetId() });
  if (persist) PropertiesService.getDocumentProperties().setProperty(PROPERTY, text);
  return Object.fromEntries(COPIES.map((key) => [key, text]));
}

function writeLedger(cache: GoogleAppsScript.Cache.Cache | null, ledger: Ledger, persist: boolean): void {
  const items = ledgerItems(ledger, persist);
  if (cache) cache.putAll(items, TTL_SECONDS);
}

/** `ledger` with `delta` (negative: given back) added to `payer`'s count today and this month. */
function added(ledger: Ledger, payer: string, delta: number): Ledger {
  const { day, month } = periods();
  const spent = spentIn(ledger, payer);
  return {
    ...ledger,
    seq: ledger.seq + 1,
    payers: {
      ...ledger.payers,
      [payer]: [day, Math.max(0, spent.today + delta), month, Math.max(0, spent.thisMonth + delta)],
    },
  };
}

/** What `payer` has spent in this spreadsheet today and this month (read without the lock). */
export function spentBy(cache: GoogleAppsScript.Cache.Cache | null, payer: string): Spent {
  return spentIn(readLedger(cache).ledger, payer);
}

/** Transactions `payer` may still spend now under `limits`, and which limit is the nearer. */
export function leftOf(spent: Spent, limits: Limits): { left: number; by: 'day' | 'month' } {
  const day = Math.max(0, limits.day - spent.today);
  const month = Math.max(0, limits.month - spent.thisMonth);
  return day <= month ? { left: day, by: 'day' } : { left: month, by: 'month' };
}

/** A payer's claims and give-backs, each under the document lock; `persist` where properties may be written. */
export interface AllowanceGate {
  /** Grants up to `n` transactions (fewer when the allowance or the lock says so) and counts them. */
  claim(n: number): number;
  /**
   * The same claim by a caller that holds the document lock and read `LEDGER_KEYS` (with its other
   * items, in one call): the copies to put back (with its own items, TTL 6 hours) are returned.
   */
  claimFrom(
    read: Readonly<Record<string, string>>,
    n: number,
  ): { granted: number; put: Record<string, string> };
  /** Gives back `n` transactions claimed and not spent. */
  giveBack(n: number): void;
  /** Why the last claim granted less than asked, if it did. */
  held(): Held | null;
  /** The payer's limits in this spreadsheet. */
  limits(): Limits;
}

/**
 * The gate of the key `apiKey`, whose owner's properties are `props` (a formula's: the spreadsheet
 * owner's; a sidebar run's: its user's).
 */
export function allowanceGate(
  cache: GoogleAppsScript.Cache.Cache | null,
  apiKey: string,
  props: Readonly<Record<string, string>>,
  persist: boolean,
): AllowanceGate {
  let held: Held | null = null;
  let who: { doc: string; payer: string; limits: Limits } | undefined;
  // Asked once, best before the lock (`limits()`): without a ledger that names the spreadsheet, it
  // is a slow Spreadsheet call.
  const payerIn = (ledger: Ledger) => {
    if (!who) {
      const doc = ledger.doc ?? activeSpreadsheetId();
      who = { doc, payer: payerOf(doc, apiKey), limits: limitsOf(props, doc) };
    }
    return who;
  };
  /** The claim itself, under the lock, from the copies as read: a pure read-check-write of the count. */
  const claimFrom = (read: Readonly<Record<string, string>> | undefined, n: number) => {
    const { ledger } = readLedger(cache, false, read);
    const { doc, payer, limits } = payerIn(ledger);
    const { left, by } = leftOf(spentIn(ledger, payer), limits);
    const granted = Math.max(0, Math.min(n, left));
    held = granted < n ? by : null;
    const put = granted > 0 ? ledgerItems(added(ledger, payer, granted), persist, doc) : {};
    return { granted, put };
  };
  return {
    limits: () => payerIn(readLedger(cache).ledger).limits,
    held: () => held,
    claimFrom,
    claim(n) {
      if (n <= 0) return 0;
      // Held already (a sidebar chunk): claimed at once under it; else waited for briefly.
      const done = underDocumentLock(5_000, () => {
        const { granted, put } = claimFrom(undefined, n);
        if (cache && granted > 0) cache.putAll(put, TTL_SECONDS);
        return granted;
      });
      if (!done) held = 'busy';
      return done ? done.value : 0;
    },
    giveBack(n) {
      if (n <= 0) return;
      // Not given back without the lock: the count then runs high, which is the safe side.
      underDocumentLock(5_000, () => {
        const { ledger } = readLedger(cache);
        const { doc, payer } = payerIn(ledger);
        const items = ledgerItems(added(ledger, payer, -n), persist, doc);
        if (cache) cache.putAll(items, TTL_SECONDS);
      });
    },
  };
}

/**
 * Keeps the count where it lasts: the newest copy into the document property, and into every cache
 * copy that was dropped. For executions that may write, under the document lock (keep.ts).
 */
export function foldLedger(cache: GoogleAppsScript.Cache.Cache | null): void {
  const { ledger, stale } = readLedger(cache, true);
  if (stale && ledger.seq > 0) writeLedger(cache, ledger, true);
}
