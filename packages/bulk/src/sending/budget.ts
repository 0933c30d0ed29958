// The --max-transactions budget of a bulk run: the one place that decides whether a request may be
// sent within it. A request takes a place when it is reserved to be sent, before it waits for its
// turn on the wire (turns.ts), and keeps it while it waits, retries and is on the wire; when it ends,
// the place is kept for good if the request was paid or may have been paid (sent whole and never
// answered, or abandoned on the wire), and given back otherwise (a 500 after its retries, a network
// failure before it was sent whole, a 429 to the end, stopped before it ever left).
//
// Why a request that finds every place taken waits instead of being refused: a place taken is not
// yet a transaction spent. Requests in flight may still end unpaid and give their place back, and
// refusing (or stopping the run, which drops every request still waiting for a turn) at that moment
// spent less than the budget allows: under --concurrency auto, where most requests wait for a turn,
// a cap of 5 spent nothing. The budget is spent only when every place is kept for good; only then
// does the run stop for it, with no reserved request left to drop.

export class Budget {
  /** Places held by requests still under way (waiting for a turn, on the wire, between retries). */
  private held = 0;
  /** Places kept for good: requests paid, or that may have been paid. */
  private kept = 0;
  /** Requests waiting for a place, in the order they asked: told whether they got one. */
  private readonly waiting: ((granted: boolean) => void)[] = [];
  private closed = false;

  constructor(readonly maxTransactions: number) {}

  /** Whether every place is kept for good: nothing more may be sent. */
  get isSpent(): boolean {
    return this.kept >= this.maxTransactions;
  }

  /**
   * A place for one request: true once it has one; false when the budget is spent (every place kept
   * for good) or the run stopped while it waited. At once when a place is free (no promise to wait
   * for); else when a request under way ends.
   */
  reserve(): boolean | Promise<boolean> {
    if (this.closed || this.isSpent) return false;
    if (this.kept + this.held < this.maxTransactions) {
      this.held++;
      return true;
    }
    // Every place is held and some may come back: wait for a request to end.
    return new Promise<boolean>((resolve) => this.waiting.push(resolve));
  }

  /** A request with a place ended: `charged` if it was paid or may have been (its place is kept). */
  release(charged: boolean): void {
    if (charged) {
      this.held--;
      this.kept++;
      // Every place kept for good: the budget is spent, and every waiter learns it.
      if (this.isSpent) this.refuseAll();
      return;
    }
    // The place comes back: handed to the first waiter as it is (so no later request takes it
    // first), else freed.
    const next = this.closed ? undefined : this.waiting.shift();
    if (next) next(true);
    else this.held--;
  }

  /** The run stopped sending: every waiter is let go without a place, to send nothing. */
  close(): void {
    this.closed = true;
    this.refuseAll();
  }

  private refuseAll(): void {
    for (const answer of this.waiting.splice(0)) answer(false);
  }
}
