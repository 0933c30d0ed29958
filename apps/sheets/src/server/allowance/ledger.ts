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
): { ledger: Ledger; stale: boolean } {
  const copies = cache ? cache.getAll(COPIES) : {};
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

function writeLedger(cache: GoogleAppsScript.Cache.Cache | null, ledger: Ledger, persist: boolean): void {
  const text = JSON.stringify({ ...ledger, doc: ledger.doc ?? activeSpreadsheetId() });
  if (cache) cache.putAll(Object.fromEntries(COPIES.map((key) => [key, text])), TTL_SECONDS);
  if (persist) PropertiesService.getDocumentProperties().setProperty(PROPERTY, text);
}

/** Adds `delta` (negative: given back) to `payer`'s count and writes every copy. Under the document lock. */
function add(
  cache: GoogleAppsScript.Cache.Cache | null,
  ledger: Ledger,
  payer: string,
  delta: number,
  persist: boolean,
) {
  const { day, month } = periods();
  const spent = spentIn(ledger, payer);
  const next: Ledger = {
    ...ledger,
    seq: ledger.seq + 1,
    payers: {
      ...ledger.payers,
      [payer]: [day, Math.max(0, spent.today + delta), month, Math.max(0, spent.thisMonth + delta)],
    },
  };
  writeLedger(cache, next, persist);
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
  let who: { payer: string; limits: Limits } | undefined;
  const payerIn = (ledger: Ledger) => {
    if (!who) {
      const doc = ledger.doc ?? activeSpreadsheetId();
      who = { payer: payerOf(doc, apiKey), limits: limitsOf(props, doc) };
    }
    return who;
  };
  return {
    limits: () => payerIn(readLedger(cache).ledger).limits,
    held: () => held,
    claim(n) {
      if (n <= 0) return 0;
      // Held already (a sidebar chunk): claimed at once under it; else waited for briefly.
      const done = underDocumentLock(5_000, () => {
        const { ledger } = readLedger(cache);
        const { payer, limits } = payerIn(ledger);
        const { left, by } = leftOf(spentIn(ledger, payer), limits);
        const granted = Math.min(n, left);
        if (granted > 0) add(cache, ledger, payer, granted, persist);
        held = granted < n ? by : null;
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
        add(cache, ledger, payerIn(ledger).payer, -n, persist);
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
