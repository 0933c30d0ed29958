import { describe, expect, it } from 'vitest';
import { abortableSleep } from '../src/sdk.js';

describe('abortableSleep', () => {
  it('waits its time', async () => {
    const started = Date.now();
    await abortableSleep(40);
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
  });

  it('ends as soon as its signal aborts, and at once when already aborted', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const waiting = abortableSleep(60_000, controller.signal);
    setTimeout(() => controller.abort(), 10);
    await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    await abortableSleep(60_000, controller.signal);
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
    await waiting;
  });
});
