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

  /**
   * The server's spend and budget as a phrase for a result: "so far this server has spent 3
   * transactions, 17 of its budget of 20 left", or "..., no budget set".
   */
  describe(): string {
    const used = `so far this server has spent ${this.spent} transaction${this.spent === 1 ? '' : 's'}`;
    return this.max === undefined
      ? `${used}, no budget set`
      : `${used}, ${this.left} of its budget of ${this.max} left`;
  }

  /** The same as a sentence of its own. */
  sentence(): string {
    const phrase = this.describe();
    return `${phrase.charAt(0).toUpperCase()}${phrase.slice(1)}.`;
  }

  /** Why a run of `needed` transactions is refused, and what the person can do about it. */
  refusal(needed: number): string {
    return `Refused before sending: the run would spend up to ${needed} transactions, but only ${this.left} of this server's budget of ${this.max} are left (${this.spent} spent). Nothing was sent. To go on, quote a smaller file (fewer rows), or restart the server with a bigger budget (--max-transactions or ENRICH_MAX_TRANSACTIONS); answers already bought stay free.`;
  }
}
