// The free key check: one empty request per base in use, and the verdict from what came back.
import { describe, expect, it } from 'vitest';
import { checkKey, type HttpRequest, type HttpResponse, planKeyCheck, readKeyCheck } from '../src/index.js';
import { KEY, SETTINGS } from './api.js';

const answer = (status: number, headers: Record<string, string> = {}): HttpResponse => ({
  status,
  headers,
  body: '',
});

describe('planKeyCheck', () => {
  it('plans one request per base: Email Verify for v2, Phone Lookup for v3, with an empty body', () => {
    const plan = planKeyCheck(SETTINGS);
    expect(plan).toEqual({
      ok: true,
      checks: [
        {
          base: 'https://v2.example.test',
          request: {
            method: 'POST',
            url: 'https://v2.example.test/v2/verify/email',
            headers: { 'x-api-key': KEY, 'Content-Type': 'application/json' },
            body: '{}',
          },
        },
        {
          base: 'https://v3.example.test/api',
          request: {
            method: 'POST',
            url: 'https://v3.example.test/api/v3/lookup/phone',
            headers: { 'x-api-key': KEY, 'Content-Type': 'application/json' },
            body: '{}',
          },
        },
      ],
    });
  });

  it('plans one request when both groups share a base', () => {
    const plan = planKeyCheck({
      ...SETTINGS,
      baseUrl: 'http://127.0.0.1:9',
      baseUrlV3: 'http://127.0.0.1:9/',
    });
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.checks.map((c) => c.request.url)).toEqual(['http://127.0.0.1:9/v2/verify/email']);
  });

  it('refuses a bad key or a bad base without the key in the message', () => {
    const badKey = planKeyCheck({ ...SETTINGS, apiKey: `${KEY}\n` });
    expect(badKey).toMatchObject({ ok: false, message: expect.stringContaining('line break') });
    expect(JSON.stringify(badKey)).not.toContain(KEY);
    expect(planKeyCheck({ ...SETTINGS, baseUrlV3: 'http://evil.test' })).toMatchObject({
      ok: false,
      message: expect.stringContaining('https://'),
    });
  });
});

describe('readKeyCheck', () => {
  it.each([
    [400, 'accepted', /Key accepted.*Nothing was spent/],
    [401, 'refused', /Key refused \(401\)/],
    [404, 'unexpected', /404.*base URL may be wrong/],
    [307, 'unexpected', /307 \(a redirect\) to evil\.test.*not followed/],
    [200, 'unexpected', /200 to an empty request.*may have cost a transaction/],
    [500, 'unexpected', /status 500/],
    [429, 'unexpected', /429/],
  ] as const)('%i means %s', (status, verdict, detail) => {
    const result = readKeyCheck(
      'https://v2.example.test',
      answer(status, { location: 'http://evil.test/x' }),
    );
    expect(result.base).toBe('https://v2.example.test');
    expect(result.verdict).toBe(verdict);
    expect(result.detail).toMatch(detail);
  });

  it('a network failure means unreachable', () => {
    expect(readKeyCheck('https://v2.example.test', { networkError: new Error('ECONNREFUSED') })).toEqual({
      base: 'https://v2.example.test',
      verdict: 'unreachable',
      detail: 'Could not reach the service at v2.example.test: ECONNREFUSED. Nothing was spent.',
    });
  });
});

describe('checkKey', () => {
  it('sends each planned request once and reports each base', async () => {
    const sent: HttpRequest[] = [];
    const report = await checkKey(SETTINGS, async (request) => {
      sent.push(request);
      if (request.url.includes('/v3/')) throw new Error('getaddrinfo ENOTFOUND');
      return answer(400);
    });
    expect(sent.map((r) => [r.url, r.body])).toEqual([
      ['https://v2.example.test/v2/verify/email', '{}'],
      ['https://v3.example.test/api/v3/lookup/phone', '{}'],
    ]);
    expect(report).toEqual({
      ok: true,
      results: [
        expect.objectContaining({ base: 'https://v2.example.test', verdict: 'accepted' }),
        expect.objectContaining({ base: 'https://v3.example.test/api', verdict: 'unreachable' }),
      ],
    });
  });

  it('sends nothing when the key is not usable', async () => {
    let sent = 0;
    const report = await checkKey({ ...SETTINGS, apiKey: ' ' }, async () => {
      sent++;
      return answer(400);
    });
    expect(report).toEqual({ ok: false, message: 'No API key is set' });
    expect(sent).toBe(0);
  });
});
