// What this user has spent in this spreadsheet this month: the paid transactions (core's isPaid,
// counted by ../send.ts) of their sidebar runs, so that the sidebar can say what the spreadsheet
// cost them. In the ledger's words (core's ledger.ts): rows of period (a UTC month, as providers
// invoice), service origin, operation and transactions; nothing about inputs or answers, no key.
//
// Kept in the runner's user properties, one value per spreadsheet (`enrich.spend.<id>`), like the
// run's checkpoint: user properties are per user across documents, so a key per spreadsheet keeps
// each user's spend apart and each spreadsheet's apart. It holds the current month only (a
// record from an earlier month reads as nothing, and the next write replaces it), so it stays a
// few hundred bytes against the 9 KB a value may hold. A chunk that spent writes it in the same
// setProperties call as its checkpoint (chunk.ts): no property write of its own, and the two
// never disagree about what was paid.
//
// Custom functions cannot set properties (docs/platforms.md), so their spend is not here (README,
// "What the sidebar shows after a run").
import {
  DEFAULT_BASE_URL,
  DEFAULT_BASE_URL_V3,
  findOperation,
  type Operation,
  operationOrigin,
  type Settings,
  type SpendRow,
} from '@enrich/core/universal';

const PREFIX = 'enrich.spend.';

/** The sidebar's line: this month's total and its parts. */
export interface SpendInfo {
  /** The UTC month, `YYYY-MM`. */
  readonly month: string;
  readonly transactions: number;
  /** One per operation (and service, when not the operation's default one), largest first. */
  readonly parts: readonly { readonly label: string; readonly transactions: number }[];
}

/** The month a transaction paid now is counted in: UTC, as the ledger's periods are. */
export function spendMonth(now = Date.now()): string {
  return new Date(now).toISOString().slice(0, 7);
}

/** This month's rows of the current user's record for this spreadsheet (none if unreadable). */
export function readSpend(spreadsheetId: string, month = spendMonth()): SpendRow[] {
  const text = PropertiesService.getUserProperties().getProperty(PREFIX + spreadsheetId);
  if (!text) return [];
  try {
    const record = JSON.parse(text) as { v?: unknown; rows?: unknown };
    if (record.v !== 1 || !Array.isArray(record.rows)) return [];
    return (record.rows as unknown[]).filter((row): row is SpendRow => isRow(row, month));
  } catch {
    // A damaged record is not worth failing a run over: it starts again from nothing.
    return [];
  }
}

function isRow(value: unknown, month: string): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Record<string, unknown>;
  return (
    row.period === month &&
    typeof row.origin === 'string' &&
    typeof row.operation === 'string' &&
    findOperation(row.operation)?.id === row.operation &&
    typeof row.transactions === 'number' &&
    Number.isSafeInteger(row.transactions) &&
    row.transactions > 0
  );
}

/** The service an operation is sent to, as the ledger names it: scheme, host and port only. */
function originOf(op: Operation, settings: Pick<Settings, 'baseUrl' | 'baseUrlV3'>): string {
  // The base passed core's check before anything was sent, so it parses; '' should it ever not.
  return operationOrigin(op, settings) ?? '';
}

const DEFAULTS = { baseUrl: DEFAULT_BASE_URL, baseUrlV3: DEFAULT_BASE_URL_V3 };

/** The rows with `transactions` more paid for `op` at the service `settings` send it to. */
export function addSpend(
  rows: readonly SpendRow[],
  op: Operation,
  settings: Settings,
  transactions: number,
  month = spendMonth(),
): SpendRow[] {
  const origin = originOf(op, settings);
  const next = rows.filter((row) => row.period === month);
  const i = next.findIndex((row) => row.operation === op.id && row.origin === origin);
  const before = next[i];
  if (before) next[i] = { ...before, transactions: before.transactions + transactions };
  else next.push({ period: month, origin, operation: op.id, transactions });
  return next;
}

/** The property that holds `rows`, for a setProperties call. */
export function spendProperty(spreadsheetId: string, rows: readonly SpendRow[]): Record<string, string> {
  return { [PREFIX + spreadsheetId]: JSON.stringify({ v: 1, rows }) };
}

/** What the sidebar shows of this month's rows. */
export function spendInfo(rows: readonly SpendRow[], month = spendMonth()): SpendInfo {
  const parts = rows
    .filter((row) => row.period === month)
    .map((row) => {
      const op = findOperation(row.operation);
      const title = op?.title ?? row.operation;
      // The service is named only when it is not the operation's default one (a test base, say).
      const usual = op && row.origin === originOf(op, DEFAULTS);
      return {
        label: usual ? title : `${title} at ${row.origin || 'another service'}`,
        transactions: row.transactions,
      };
    })
    .sort((a, b) => b.transactions - a.transactions || (a.label < b.label ? -1 : 1));
  return { month, transactions: parts.reduce((sum, p) => sum + p.transactions, 0), parts };
}
