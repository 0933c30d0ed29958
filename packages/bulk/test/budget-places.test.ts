// The --max-transactions budget on its own (budget.ts): places reserved, kept for good when paid,
// given back (to the first waiter, in order) when not; refused once spent or once the run stops.
// budget.test.ts runs whole bulk runs against the sandbox; this pins each rule of the class.
import { describe, expect, it } from 'vitest';
import { Budget } from '../src/sending/budget.js';

/** What a pending reservation resolved to, or 'waiting' if it has not yet. */
async function state(reservation: boolean | Promise<boolean>): Promise<boolean | 'waiting'> {
  return Promise.race([
    Promise.resolve(reservation),
    new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), 0)),
  ]);
}

describe('Budget', () => {
  it('grants as many places at once as the budget, then makes the next request wait', async () => {
    const budget = new Budget(2);
    expect(budget.reserve()).toBe(true);
    expect(budget.reserve()).toBe(true);
    expect(await state(budget.reserve())).toBe('waiting');
  });

  it('is spent once every place is kept for good: the waiting and any later request are refused', async () => {
    const budget = new Budget(2);
    budget.reserve();
    budget.reserve();
    const waiting = budget.reserve();
    budget.release(true);
    expect(budget.isSpent).toBe(false);
    expect(await state(waiting)).toBe('waiting');
    budget.release(true);
    expect(budget.isSpent).toBe(true);
    expect(await state(waiting)).toBe(false);
    expect(budget.reserve()).toBe(false);
  });

  it('hands a place given back to the first waiter, in the order they asked', async () => {
    const budget = new Budget(1);
    budget.reserve();
    const first = budget.reserve();
    const second = budget.reserve();
    budget.release(false);
    expect(await state(first)).toBe(true);
    expect(await state(second)).toBe('waiting');
    budget.release(false);
    expect(await state(second)).toBe(true);
  });

  it('frees a place given back when nobody waits: the next request has it at once', async () => {
    const budget = new Budget(1);
    expect(budget.reserve()).toBe(true);
    budget.release(false);
    expect(budget.reserve()).toBe(true);
    // Still one place, no more.
    expect(await state(budget.reserve())).toBe('waiting');
  });

  it('once closed (the run stopped sending), lets every waiter go without a place and refuses the rest', async () => {
    const budget = new Budget(1);
    budget.reserve();
    const waiting = budget.reserve();
    budget.close();
    expect(await state(waiting)).toBe(false);
    expect(budget.reserve()).toBe(false);
    // A place given back after the stop goes to nobody.
    budget.release(false);
    expect(budget.reserve()).toBe(false);
    expect(budget.isSpent).toBe(false);
  });
});
