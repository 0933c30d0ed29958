// The spend ledger: one line of JSON per batch of paid transactions a client made, so that what the
// toolkit spent, across runs and clients, can be checked against the provider's invoice. A line
// says when, which operation, which service (its origin only), which client, which run or file,
// and how many: never an input, an answer, a key or a path, so the ledger holds no personal data.
//
// What counts as paid is core's one rule, isPaid (billing.ts); clients count with it and write
// here. Periods are UTC days and months, as providers invoice: `at` is an ISO time in UTC (its
// `Z`), so a period is a prefix of it and no time-zone table is needed (Apps Script has none).
//
// The file is append-only and may be written by several processes at once, or torn by a crash:
// reading skips any line that does not parse or does not have the shape, and counts it.
import { OPERATIONS, type Operation, type OperationId } from './catalog.js';
import { baseUrlOf, isLoopback, type Settings } from './settings.js';

export const LEDGER_CLIENTS = ['cli', 'mcp', 'vscode', 'sheets', 'functions'] as const;
export type LedgerClient = (typeof LEDGER_CLIENTS)[number];

export interface LedgerEntry {
  /** The line's format; a reader skips (and counts) a version it does not know. */
  readonly v: 1;
  /** When the transactions were recorded: an ISO time in UTC, `2026-11-25T14:03:07.412Z`. */
  readonly at: string;
  readonly operation: OperationId;
  /** The service's origin, scheme://host[:port]: never a path, query or user part (see ledgerOrigin). */
  readonly origin: string;
  readonly client: LedgerClient;
  /** A random id of the run or call (not personal): the lines of one run share it. */
  readonly run: string;
  /** The input file's base name, for bulk runs (`-` for standard input); never its folder. */
  readonly file?: string;
  /** Paid transactions, at least 1. */
  readonly count: number;
}

export interface LedgerRead {
  readonly entries: LedgerEntry[];
  /** Lines that were not ledger lines (torn by a crash, garbage, another version): skipped. */
  readonly skipped: number;
}

export type SpendPeriod = 'day' | 'month';

export interface SpendRow {
  /** `YYYY-MM` or `YYYY-MM-DD`, in UTC. */
  readonly period: string;
  readonly origin: string;
  readonly operation: OperationId;
  readonly transactions: number;
}

const OPERATION_IDS: ReadonlySet<string> = new Set(OPERATIONS.map((op) => op.id));
const CLIENTS: ReadonlySet<string> = new Set(LEDGER_CLIENTS);
const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;
// A host without anything that would need quoting in CSV or hide a path: no space, comma, quote.
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/(?:\[[0-9a-f:.]+\]|[^\s/?#@\\[\]:"',]+)(?::\d{1,5})?$/;
const RUN = /^[A-Za-z0-9._:-]{1,64}$/;
// A base name: no folder separator, no control character, at most 255 characters (what file
// systems allow), so that a line stays well under the 4 KB that one append writes whole.
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const FILE = /^[^/\\\u0000-\u001f\u007f]{1,255}$/;
const SINCE = /^(\d{4})-(\d{2})(?:-(\d{2}))?$/;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };
const URL_PARTS =
  /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[0-9a-fA-F:.]+\]|[^/:?#\s[\]@]+)(?::(\d{1,5}))?(?:[/?#].*)?$/;

/**
 * The origin of a base URL as the ledger records it: scheme and host in lower case, the port
 * unless it is the scheme's default; the path, query and any user part (which could hold a key)
 * dropped. Undefined for what is not such a URL. Parsed by hand: Apps Script has no URL class.
 */
export function ledgerOrigin(baseUrl: string): string | undefined {
  const match = URL_PARTS.exec(baseUrl.trim());
  if (!match) return undefined;
  const scheme = (match[1] ?? '').toLowerCase();
  const host = (match[2] ?? '').toLowerCase();
  const port = match[3] === undefined || match[3] === DEFAULT_PORTS[scheme] ? '' : `:${Number(match[3])}`;
  const origin = `${scheme}://${host}${port}`;
  return ORIGIN.test(origin) ? origin : undefined;
}

/** The origin of the service an operation is sent to, as the ledger records it. */
export function operationOrigin(
  op: Operation,
  settings: Pick<Settings, 'baseUrl' | 'baseUrlV3'>,
): string | undefined {
  return ledgerOrigin(baseUrlOf(op, settings));
}

/** The entry as it may be written: the known fields only, each of its shape; else undefined. */
function entryOf(value: unknown): LedgerEntry | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  if (o.v !== 1) return undefined;
  const { at, operation, origin, client, run, file, count } = o;
  if (typeof at !== 'string' || !AT.test(at) || Number.isNaN(Date.parse(at))) return undefined;
  if (typeof operation !== 'string' || !OPERATION_IDS.has(operation)) return undefined;
  if (typeof origin !== 'string' || !ORIGIN.test(origin)) return undefined;
  if (typeof client !== 'string' || !CLIENTS.has(client)) return undefined;
  if (typeof run !== 'string' || !RUN.test(run)) return undefined;
  if (file !== undefined && (typeof file !== 'string' || !FILE.test(file))) return undefined;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 1) return undefined;
  return {
    v: 1,
    at,
    operation: operation as OperationId,
    origin,
    client: client as LedgerClient,
    run,
    ...(file === undefined ? {} : { file }),
    count,
  };
}

/**
 * One ledger line, ending in "\n". Throws a TypeError for an entry that does not have the shape
 * (a path for `file`, an origin with a path, a count of 0): a bug of the writer, never written.
 */
export function ledgerLine(entry: LedgerEntry): string {
  const checked = entryOf(entry);
  if (!checked) throw new TypeError(`not a ledger entry: ${JSON.stringify(entry)}`);
  return `${JSON.stringify(checked)}\n`;
}

/** The entries of a ledger's text; a line that is not one is skipped and counted, blank lines ignored. */
export function readLedger(text: string): LedgerRead {
  const entries: LedgerEntry[] = [];
  let skipped = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    const entry = entryOf(parsed);
    if (entry) entries.push(entry);
    else skipped++;
  }
  return { entries, skipped };
}

/**
 * Why `text` is not a period to start from (`YYYY-MM` or `YYYY-MM-DD`, a real month or day), or
 * undefined when it is one.
 */
export function sinceProblem(text: string): string | undefined {
  const match = SINCE.exec(text);
  const wanted = `must be a month (YYYY-MM) or a day (YYYY-MM-DD); got "${text}"`;
  if (!match) return wanted;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = match[3] === undefined ? 1 : Number(match[3]);
  const date = new Date(Date.UTC(year, month - 1, day));
  const real =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return real ? undefined : wanted;
}

/**
 * Paid transactions per period (UTC day or month), service origin and operation, sorted by those
 * three. Origins are never added together: the sandbox and a real service stay apart. `since`
 * keeps the transactions recorded on or after that UTC month or day; a bad one throws a RangeError.
 */
export function spendTotals(
  entries: readonly LedgerEntry[],
  options: { readonly by: SpendPeriod; readonly since?: string | undefined },
): SpendRow[] {
  const { by, since } = options;
  if (since !== undefined) {
    const problem = sinceProblem(since);
    if (problem) throw new RangeError(`since ${problem}`);
  }
  // ISO days compare as text; a month starts on its first day.
  const from = since === undefined ? '' : since.length === 7 ? `${since}-01` : since;
  const width = by === 'day' ? 10 : 7;
  const totals = new Map<string, { period: string; origin: string; operation: OperationId; n: number }>();
  for (const entry of entries) {
    if (entry.at.slice(0, 10) < from) continue;
    const period = entry.at.slice(0, width);
    const key = JSON.stringify([period, entry.origin, entry.operation]);
    const row = totals.get(key);
    if (row) row.n += entry.count;
    else totals.set(key, { period, origin: entry.origin, operation: entry.operation, n: entry.count });
  }
  return [...totals.values()]
    .sort(
      (a, b) =>
        compare(a.period, b.period) || compare(a.origin, b.origin) || compare(a.operation, b.operation),
    )
    .map(({ period, origin, operation, n }) => ({ period, origin, operation, transactions: n }));
}

/** The transactions of each origin in `rows`, by origin: what a total line adds up, per service. */
export function originTotals(rows: readonly SpendRow[]): { origin: string; transactions: number }[] {
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(row.origin, (totals.get(row.origin) ?? 0) + row.transactions);
  return [...totals.entries()]
    .sort(([a], [b]) => compare(a, b))
    .map(([origin, transactions]) => ({ origin, transactions }));
}

/**
 * Whether an origin is a server on this machine (loopback: 127.x, localhost, [::1]): a sandbox, the
 * embedded one (`http://127.0.0.1`) or one started on a port, which bills nothing. A real service
 * is reached over HTTPS elsewhere; plain HTTP is allowed only on loopback, for the sandbox.
 */
export function isLocalOrigin(origin: string): boolean {
  const host = URL_PARTS.exec(origin)?.[2];
  return host !== undefined && isLoopback(host);
}

/**
 * The grand totals of `rows`: what real services may bill, and what sandboxes on this machine
 * counted (never added together).
 */
export function grandTotals(rows: readonly SpendRow[]): { billable: number; local: number } {
  let billable = 0;
  let local = 0;
  for (const row of rows) {
    if (isLocalOrigin(row.origin)) local += row.transactions;
    else billable += row.transactions;
  }
  return { billable, local };
}

// By code unit, not locale: the same order in Node and Apps Script.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
