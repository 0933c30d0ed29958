import { describe, expect, it } from 'vitest';
import { abortableSleep } from '../src/sdk.js';

describe('abortableSleep', () => {
  it('waits its time', async () => {
    const started = Date.now();
    await abortableSleep(40);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
  });

  // No wall clock: an abort resolves the wait within the same turn of the event loop, before any
  // timer, even one of 0 ms set after the abort, can fire.
  const settledBeforeAnyTimer = (waiting: Promise<void>) =>
    Promise.race([
      waiting.then(() => 'settled'),
      new Promise<string>((resolve) => setTimeout(() => resolve('a timer fired first'), 0)),
    ]);

  it('ends as soon as its signal aborts, and at once when already aborted', async () => {
    const controller = new AbortController();
    const waiting = abortableSleep(60_000, controller.signal);
    await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    expect(await settledBeforeAnyTimer(waiting)).toBe('settled');
    expect(await settledBeforeAnyTimer(abortableSleep(60_000, controller.signal))).toBe('settled');
  });

  it("cuts the caller's own sleep short", async () => {
    const controller = new AbortController();
    let slept = 0;
    const never = (ms: number) => {
      slept = ms;
      return new Promise<void>(() => undefined);
    };
    const waiting = abortableSleep(1234, controller.signal, never);
    expect(slept).toBe(1234);
    controller.abort();
    expect(await settledBeforeAnyTimer(waiting)).toBe('settled');
  });
});
