import { describe, expect, it } from 'vitest';
import { SharedRequests } from '../src/index.js';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('SharedRequests', () => {
  it('buys once for callers that ask the same key at the same moment; each gets the answer', async () => {
    const shared = new SharedRequests<string>();
    const answer = deferred<string>();
    let bought = 0;
    const buy = () => {
      bought++;
      return answer.promise;
    };
    const calls = [shared.once('k', buy), shared.once('k', buy), shared.once('k', buy)];
    expect(shared.size).toBe(1);
    answer.resolve('record');
    const results = await Promise.all(calls);
    expect(bought).toBe(1);
    expect(results).toEqual([
      { value: 'record', shared: false },
      { value: 'record', shared: true },
      { value: 'record', shared: true },
    ]);
    expect(shared.size).toBe(0);
  });

  it('buys again once the first purchase has ended (the answer store answers from then on)', async () => {
    const shared = new SharedRequests<number>();
    let bought = 0;
    const buy = async () => ++bought;
    expect(await shared.once('k', buy)).toEqual({ value: 1, shared: false });
    expect(await shared.once('k', buy)).toEqual({ value: 2, shared: false });
  });

  it('keeps other keys apart, and hands a failure to every caller that waited for it', async () => {
    const shared = new SharedRequests<string>();
    const failing = deferred<string>();
    const a = shared.once('a', () => failing.promise);
    const a2 = shared.once('a', async () => 'never');
    const b = await shared.once('b', async () => 'other');
    expect(b).toEqual({ value: 'other', shared: false });
    failing.reject(new Error('network'));
    await expect(a).rejects.toThrow('network');
    await expect(a2).rejects.toThrow('network');
    expect(shared.size).toBe(0);
  });
});
