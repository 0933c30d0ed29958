// The server's budget on its own: places held by calls in flight count, so parallel calls cannot
// overspend; what was spent (and what may have been paid) is counted once settled.
import { describe, expect, it } from 'vitest';
import { Budget } from '../src/budget.js';

describe('Budget', () => {
  it('holds places up to the budget exactly, counting calls in flight', () => {
    const budget = new Budget(3);
    expect(budget.reserve()).toBe(true);
    expect(budget.reserve(2)).toBe(true);
    expect(budget.committed).toBe(3);
    expect(budget.left).toBe(0);
    expect(budget.reserve()).toBe(false);
    // A refused reservation holds nothing.
    expect(budget.committed).toBe(3);
  });

  it('gives back what was not spent, and counts what was', () => {
    const budget = new Budget(3);
    budget.reserve(2);
    budget.settle(2, 1);
    expect(budget.spent).toBe(1);
    expect(budget.committed).toBe(1);
    expect(budget.left).toBe(2);
    expect(budget.reserve(2)).toBe(true);
    expect(budget.reserve()).toBe(false);
  });

  it('counts a request that got no answer as spent, and as one that may have been paid', () => {
    const budget = new Budget(5);
    budget.reserve(2);
    budget.settle(2, 1, 1);
    expect(budget.spent).toBe(2);
    expect(budget.mayHaveBeenPaid).toBe(1);
    expect(budget.left).toBe(3);
  });

  it('never says less than nothing is left', () => {
    const budget = new Budget(1);
    budget.reserve();
    budget.settle(1, 3);
    expect(budget.left).toBe(0);
  });

  it('without a maximum: every reservation is held, and nothing is "left"', () => {
    const budget = new Budget(undefined);
    expect(budget.reserve(1000)).toBe(true);
    expect(budget.left).toBeUndefined();
    expect(budget.committed).toBe(1000);
  });

  it('describes itself in words a reader can follow (issue 40)', () => {
    const budget = new Budget(10);
    expect(budget.describe()).toBe(
      'so far this server has spent 0 transactions, 10 of its budget of 10 left',
    );
    budget.reserve();
    budget.settle(1, 1);
    expect(budget.describe()).toBe('so far this server has spent 1 transaction, 9 of its budget of 10 left');
    expect(budget.sentence()).toBe('So far this server has spent 1 transaction, 9 of its budget of 10 left.');
    const open = new Budget(undefined);
    open.reserve(2);
    open.settle(2, 2);
    expect(open.describe()).toBe('so far this server has spent 2 transactions, no budget set');
  });

  it('refuses a run that does not fit with the figures and the next step', () => {
    const budget = new Budget(20);
    budget.reserve(2);
    budget.settle(2, 2);
    expect(budget.refusal(26)).toBe(
      "Refused before sending: the run would spend up to 26 transactions, but only 18 of this server's budget of 20 are left (2 spent). Nothing was sent. To go on, quote a smaller file (fewer rows), or restart the server with a bigger budget (--max-transactions or ENRICH_MAX_TRANSACTIONS); answers already bought stay free.",
    );
  });
});
