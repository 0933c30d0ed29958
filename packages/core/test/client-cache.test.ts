// The SDK's answer cache (issue 40): the same question twice is bought once; a question on its way
// is shared, not bought again; only paid answers are kept; the cache is per service.
import { describe, expect, it } from 'vitest';
import { type AnswerCache, createClient, createMemoryCache, type Outcome } from '../src/sdk.js';

const base = {
  apiKey: 'test-key-123',
  baseUrl: 'https://v2.example.com',
  baseUrlV3: 'https://v3.example.com',
};
const RECORD = { Email: 'jane@example.com', Result: 'VERIFIED' };

/** A fetch that answers with `status` (a record for 200) after `delayMs`, counting what it was sent. */
function countingFetch(status = 200, delayMs = 0) {
  const sent: string[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    sent.push(`${String(url)} ${String(init?.body)}`);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    return new Response(status === 200 ? JSON.stringify(RECORD) : null, { status });
  };
  return { fetch: fetch as typeof globalThis.fetch, sent };
}

describe('the SDK’s answer cache', () => {
  it('buys the same question once, however it is spelt, and says the second answer was cached', async () => {
    const { fetch, sent } = countingFetch();
    const client = createClient({ ...base, fetch });
    const first = await client.emailVerify({ Email: 'jane@example.com' });
    const second = await client.emailVerify({ Email: ' jane@EXAMPLE.com ' });
    expect(sent).toHaveLength(1);
    expect(first.cached).toBeUndefined();
    expect(second).toEqual({ ...first, cached: true });
  });

  it('shares a question already on its way (Promise.all over duplicates)', async () => {
    const { fetch, sent } = countingFetch(200, 30);
    const client = createClient({ ...base, fetch });
    const results = await Promise.all(
      ['5550102030', '(555) 010-2030', '555.010.2030'].map((Phone) => client.phoneLookup({ Phone })),
    );
    expect(sent).toHaveLength(1);
    expect(results.map((r) => r.cached)).toEqual([undefined, true, true]);
  });

  it('keeps a no match (paid) but not an error (free): the error is asked again', async () => {
    const none = countingFetch(204);
    const client = createClient({ ...base, fetch: none.fetch });
    await client.emailVerify({ Email: 'jane@example.com' });
    expect(await client.emailVerify({ Email: 'jane@example.com' })).toEqual({
      kind: 'no-match',
      cached: true,
    });
    expect(none.sent).toHaveLength(1);
    const refused = countingFetch(401);
    const other = createClient({ ...base, fetch: refused.fetch });
    await other.emailVerify({ Email: 'jane@example.com' });
    await other.emailVerify({ Email: 'jane@example.com' });
    expect(refused.sent).toHaveLength(2);
  });

  it('keeps answers apart per service and per operation', async () => {
    const cache = createMemoryCache();
    const a = countingFetch();
    const b = countingFetch();
    await createClient({ ...base, fetch: a.fetch, cache }).emailVerify({ Email: 'jane@example.com' });
    await createClient({ ...base, baseUrl: 'https://other.example.com', fetch: b.fetch, cache }).emailVerify({
      Email: 'jane@example.com',
    });
    expect([a.sent.length, b.sent.length]).toEqual([1, 1]);
    expect(cache.size).toBe(2);
  });

  it('buys every call with cache: false, and takes any { get, set } store (a Map)', async () => {
    const off = countingFetch();
    const uncached = createClient({ ...base, fetch: off.fetch, cache: false });
    await uncached.emailVerify({ Email: 'jane@example.com' });
    await uncached.emailVerify({ Email: 'jane@example.com' });
    expect(off.sent).toHaveLength(2);
    const store = new Map<string, Outcome>();
    const on = countingFetch();
    await createClient({ ...base, fetch: on.fetch, cache: store }).emailVerify({ Email: 'jane@example.com' });
    await createClient({ ...base, fetch: on.fetch, cache: store }).emailVerify({ Email: 'jane@example.com' });
    expect(on.sent).toHaveLength(1);
    expect([...store.keys()]).toEqual(['https://v2.example.com email-verify:[["Email","jane@example.com"]]']);
  });

  it('gives the paid answer even when the caller’s store fails to keep it', async () => {
    const { fetch } = countingFetch();
    const broken: AnswerCache = {
      get: () => undefined,
      set: () => Promise.reject(new Error('disk full')),
    };
    const result = await createClient({ ...base, fetch, cache: broken }).emailVerify({
      Email: 'jane@example.com',
    });
    expect(result).toMatchObject({ kind: 'record', record: RECORD });
  });

  it('a memory cache keeps at most maxAnswers, dropping the oldest', () => {
    const cache = createMemoryCache({ maxAnswers: 2 });
    for (const key of ['a', 'b', 'c']) cache.set(key, { kind: 'no-match', status: 204 });
    expect([cache.get('a'), cache.size]).toEqual([undefined, 2]);
    expect(() => createMemoryCache({ maxAnswers: 0 })).toThrow(
      'maxAnswers must be a whole number of at least 1',
    );
  });

  it('a caller that stops its own call does not stop another caller waiting for the same answer', async () => {
    const { fetch, sent } = countingFetch(200, 40);
    const client = createClient({ ...base, fetch });
    const controller = new AbortController();
    const stopped = client.emailVerify({ Email: 'jane@example.com' }, { signal: controller.signal });
    const waiting = client.emailVerify({ Email: 'jane@example.com' });
    controller.abort(new Error('stop'));
    await expect(stopped).rejects.toThrow('stop');
    expect(await waiting).toMatchObject({ kind: 'record', record: RECORD });
    expect(sent.length).toBeGreaterThanOrEqual(1);
  });
});
