// The SDK's client at run time, over a fake fetch (core cannot depend on the sandbox; the installed
// tarball is run against the real sandbox by packages/install-check).
import { describe, expect, it } from 'vitest';
import { createClient, methodName } from '../src/sdk.js';

interface Seen {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** A fetch that answers from a list, one answer per request, and records what it was sent. */
function fakeFetch(answers: Array<{ status: number; body?: unknown; headers?: Record<string, string> }>) {
  const seen: Seen[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    seen.push({
      url: String(url),
      headers: init?.headers as Record<string, string>,
      body: String(init?.body),
    });
    const answer = answers[Math.min(seen.length - 1, answers.length - 1)] ?? { status: 500 };
    const text = answer.body === undefined ? null : JSON.stringify(answer.body);
    return new Response(answer.status === 204 ? null : text, {
      status: answer.status,
      headers: answer.headers,
    });
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

const base = {
  apiKey: 'test-key-123',
  baseUrl: 'https://v2.example.com',
  baseUrlV3: 'https://v3.example.com/',
};

describe('createClient', () => {
  it('names methods from the titles', () => {
    expect(['Auto Append', 'Phone Lookup', 'TCPA Verify', 'ID Verify'].map(methodName)).toEqual([
      'autoAppend',
      'phoneLookup',
      'tcpaVerify',
      'idVerify',
    ]);
    expect(Object.keys(createClient(base)).sort()).toEqual(
      [
        'autoAppend',
        'demographicAppend',
        'emailAppend',
        'emailLookup',
        'emailVerify',
        'idVerify',
        'phoneAppend',
        'phoneLookup',
        'tcpaVerify',
      ].sort(),
    );
  });

  it('normalises, sends to the v3 base with the key, and gives the record with the catalog types', async () => {
    const { fetch, seen } = fakeFetch([
      {
        status: 200,
        body: {
          Name: { FName: 'JANE', LName: 'DOE', MName: '' },
          Address: { City: 'BOSTON', Deliverable: true, AptType: null, Zip: 2134 },
          trace: 't1',
        },
      },
    ]);
    const client = createClient({ ...base, fetch });
    const result = await client.phoneLookup({ Phone: '(555) 010-2030' });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('https://v3.example.com/v3/lookup/phone');
    expect(seen[0]?.headers['x-api-key']).toBe('test-key-123');
    expect(JSON.parse(seen[0]?.body ?? '')).toEqual({ Phone: '5550102030' });
    expect(result.kind).toBe('record');
    if (result.kind !== 'record') return;
    expect(result.record.Name.FName).toBe('JANE');
    expect(result.record.Address.Deliverable).toBe(true);
    expect(result.record.Address.AptType).toBeNull();
    expect(result.record.Address.Zip).toBe('2134');
    // Every field of the description is there, missing ones empty.
    expect(result.record.Address.Street).toBe('');
    expect(Object.keys(result.record.Address)).toHaveLength(13);
  });

  it('gives numbers as numbers and null where a number or flag is missing', async () => {
    const { fetch } = fakeFetch([{ status: 200, body: { Phone: '(555) 010-2030', PHV: 3 } }]);
    const client = createClient({ ...base, fetch });
    const result = await client.phoneAppend({
      FName: 'Jane',
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: '02134',
    });
    if (result.kind !== 'record') throw new Error(result.kind);
    expect(result.record.PHV).toBe(3);
    const empty = fakeFetch([{ status: 200, body: { PHV: '' } }]);
    const second = await createClient({ ...base, fetch: empty.fetch }).phoneAppend({
      FName: 'Jane',
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: '02134',
    });
    expect(second.kind === 'record' && second.record.PHV).toBeNull();
  });

  it('sends nothing for an invalid input, and says which field and bound', async () => {
    const { fetch, seen } = fakeFetch([{ status: 200, body: {} }]);
    const client = createClient({ ...base, fetch });
    const result = await client.phoneLookup({ Phone: '555010203' });
    expect(result).toEqual({
      kind: 'error',
      error: { code: 'invalid-input', message: 'Phone must be 10 digits; got 9' },
    });
    // A field of another operation, passed past the types, is refused too.
    const other = await client.phoneLookup({ Email: 'jane@example.com' } as never);
    expect(other.kind === 'error' && other.error.code).toBe('invalid-input');
    expect(seen).toHaveLength(0);
  });

  it('no match on 204; 401 is not retried; 500 is retried per the policy', async () => {
    const none = fakeFetch([{ status: 204 }]);
    expect(await createClient({ ...base, fetch: none.fetch }).emailVerify({ Email: 'a@b.co' })).toEqual({
      kind: 'no-match',
    });
    const refused = fakeFetch([{ status: 401, body: { error: 'no' } }]);
    const r401 = await createClient({ ...base, fetch: refused.fetch }).emailVerify({ Email: 'a@b.co' });
    expect(r401.kind === 'error' && r401.error.code).toBe('unauthorized');
    expect(refused.seen).toHaveLength(1);
    const flaky = fakeFetch([
      { status: 500 },
      { status: 500 },
      { status: 200, body: { Email: 'a@b.co', Result: 'OK' } },
    ]);
    const client = createClient({ ...base, fetch: flaky.fetch, retry: { baseDelayMs: 1, maxAttempts: 3 } });
    const result = await client.emailVerify({ Email: 'a@b.co' });
    expect(result.kind === 'record' && result.record).toEqual({ Email: 'a@b.co', Result: 'OK' });
    expect(flaky.seen).toHaveLength(3);
    // The v2 base.
    expect(flaky.seen[0]?.url).toBe('https://v2.example.com/v2/verify/email');
  });

  it('an aborted call rejects with the signal’s reason and stops retrying', async () => {
    const { fetch, seen } = fakeFetch([{ status: 500 }]);
    const client = createClient({ ...base, fetch, retry: { baseDelayMs: 10_000, maxAttempts: 5 } });
    const controller = new AbortController();
    const pending = client.emailVerify({ Email: 'a@b.co' }, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop')), 50);
    await expect(pending).rejects.toThrow('stop');
    expect(seen).toHaveLength(1);
    await expect(client.emailVerify({ Email: 'a@b.co' }, { signal: AbortSignal.abort() })).rejects.toThrow();
    expect(seen).toHaveLength(1);
  });

  it('refuses a missing key or a plain-http base at once, without showing the key', () => {
    expect(() => createClient({ apiKey: '' })).toThrow('apiKey is required');
    expect(() => createClient({ apiKey: 'secret-key-xyz', baseUrl: 'http://api.example.com' })).toThrow(
      /https/,
    );
    try {
      createClient({ apiKey: 'secret-key-xyz', baseUrl: 'http://api.example.com' });
    } catch (error) {
      expect(String(error)).not.toContain('secret-key-xyz');
    }
  });
});
