// The journal front's spend: the monthly cap, the per-query budgets and the spend rows, counted in
// memory. One process is all the journal serves, so memory is atomic enough; what it counts starts
// at 0 when the front opens (the local ledger, not this, is the record that outlives the process).
import { checkMonthlyCap, checkSpendRequest, granted, monthOf } from './spend-rules.js';
import type { SpendRequest, SpendRow } from './store-front.js';

export class MemorySpend {
  /** Transactions by month and operation: `month\u0000operation`. */
  private readonly rows = new Map<string, number>();
  private readonly byMonth = new Map<string, number>();
  private readonly byQuery = new Map<string, number>();

  constructor(
    private readonly namespace: string,
    private readonly maxTransactionsPerMonth: number | undefined,
    private readonly now: () => number,
  ) {
    checkMonthlyCap(maxTransactionsPerMonth);
  }

  reserve(request: SpendRequest): number {
    checkSpendRequest(request);
    const month = monthOf(this.now());
    const capLeft =
      (this.maxTransactionsPerMonth ?? Number.POSITIVE_INFINITY) - (this.byMonth.get(month) ?? 0);
    const queryLeft = request.query
      ? request.query.limit - (this.byQuery.get(request.query.id) ?? 0)
      : Number.POSITIVE_INFINITY;
    const count = granted(request.count, capLeft, queryLeft);
    this.add(month, request, count);
    return count;
  }

  /** Gives back what was reserved and not spent; never below 0. */
  refund(request: SpendRequest): void {
    checkSpendRequest(request);
    this.add(monthOf(this.now()), request, -request.count);
  }

  spend(): SpendRow[] {
    return [...this.rows]
      .map(([at, transactions]) => {
        const [month = '', operation = ''] = at.split('\u0000');
        return { month, namespace: this.namespace, operation, transactions };
      })
      .sort((a, b) => a.month.localeCompare(b.month) || a.operation.localeCompare(b.operation));
  }

  private add(month: string, request: SpendRequest, delta: number): void {
    if (delta === 0) return;
    const row = `${month}\u0000${request.operation}`;
    const addTo = (map: Map<string, number>, key: string) =>
      map.set(key, Math.max(0, (map.get(key) ?? 0) + delta));
    addTo(this.rows, row);
    addTo(this.byMonth, month);
    if (request.query) addTo(this.byQuery, request.query.id);
  }
}
