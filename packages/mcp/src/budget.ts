// The budget of one server process: transactions spent (paid answers, and requests that may have
// been paid: sent whole, no answer), and a paid call refused before anything is sent once the
// budget is reached. Calls in flight hold their place, so parallel calls cannot overspend.
export class Budget {
  spent = 0;
  /** Of those, requests that got no answer and may have been billed. */
  mayHaveBeenPaid = 0;
  fromCache = 0;
  private reserved = 0;

  constructor(readonly max: number | undefined) {}

  get left(): number | undefined {
    return this.max === undefined ? undefined : Math.max(0, this.max - this.spent - this.reserved);
  }

  /** Holds `n` transactions for a call about to be sent; false (nothing held) when over the budget. */
  reserve(n = 1): boolean {
    if (this.max !== undefined && this.spent + this.reserved + n > this.max) return false;
    this.reserved += n;
    return true;
  }

  /** Releases what `reserve` held and counts what was actually spent. */
  settle(reserved: number, spent: number, unanswered = 0): void {
    this.reserved -= reserved;
    this.spent += spent + unanswered;
    this.mayHaveBeenPaid += unanswered;
  }

  /** Paid calls made or in flight (for the confirmation threshold). */
  get committed(): number {
    return this.spent + this.reserved;
  }

  describe(): string {
    const used = `${this.spent} transaction${this.spent === 1 ? '' : 's'} spent by this server`;
    return this.max === undefined
      ? `${used} (no budget set)`
      : `${used}, ${this.left} left of the budget of ${this.max}`;
  }
}
