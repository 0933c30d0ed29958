// What the Spend view and the Show Spend document say, from the ledger's entries: core's totals by
// UTC month (as providers invoice), per service origin, then per operation. Origins are never added
// together: the sandbox's spend and a real service's are different money.
import { getOperation, type LedgerEntry, type OperationId, originTotals, spendTotals } from '@enrich/core';

export interface OperationSpend {
  readonly operation: OperationId;
  readonly title: string;
  readonly transactions: number;
}

export interface OriginSpend {
  readonly origin: string;
  readonly transactions: number;
  readonly operations: readonly OperationSpend[];
}

export interface MonthSpend {
  /** `YYYY-MM`, in UTC. */
  readonly month: string;
  readonly origins: readonly OriginSpend[];
}

/** The UTC month of a time, as the ledger's periods are: "2026-11". */
export function monthOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/** Every month with spend, newest first; in each, the origins in order and their operations. */
export function spendByMonth(entries: readonly LedgerEntry[]): MonthSpend[] {
  const rows = spendTotals(entries, { by: 'month' });
  const months = [...new Set(rows.map((r) => r.period))].sort().reverse();
  return months.map((month) => {
    const ofMonth = rows.filter((r) => r.period === month);
    return {
      month,
      origins: originTotals(ofMonth).map(({ origin, transactions }) => ({
        origin,
        transactions,
        // The most spent first: what the invoice is mostly made of.
        operations: ofMonth
          .filter((r) => r.origin === origin)
          .map((r) => ({
            operation: r.operation,
            title: getOperation(r.operation).title,
            transactions: r.transactions,
          }))
          .sort((a, b) => b.transactions - a.transactions || (a.title < b.title ? -1 : 1)),
      })),
    };
  });
}

/** One month's spend (none: an empty list). */
export function monthSpend(entries: readonly LedgerEntry[], month: string): readonly OriginSpend[] {
  return (
    spendByMonth(entries.filter((e) => e.at.startsWith(month))).find((m) => m.month === month)?.origins ?? []
  );
}

export function transactionsText(n: number): string {
  return `${n.toLocaleString('en-US')} transaction${n === 1 ? '' : 's'}`;
}
