// The request builder, the base-URL rule (HTTPS, or plain HTTP on loopback only) and the
// redacted forms of a request, which must never hold the key.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildRequest,
  checkBaseUrl,
  DEFAULT_BASE_URL,
  DEFAULT_BASE_URL_V3,
  type HttpRequest,
  isLoopback,
  OPERATIONS,
  redactRequest,
  toCurl,
  validate,
} from '../src/index.js';
import { ALL_IDS, KEY, op, SETTINGS, VALID } from './api.js';

function built(
  id: (typeof ALL_IDS)[number],
  input: Record<string, unknown> = VALID[id],
  settings = SETTINGS,
) {
  const checked = validate(op(id), input);
  if (!checked.ok) throw new Error(checked.message);
  const result = buildRequest(op(id), checked.input, settings);
  if (!result.ok) throw new Error(result.message);
  return result.request;
}

// The Endpoints table: which base each operation hangs from.
const URLS: Record<(typeof ALL_IDS)[number], string> = {
  'auto-append': 'https://v2.example.test/v2/append/auto',
  'demographic-append': 'https://v2.example.test/v2/append/demographic',
  'email-append': 'https://v3.example.test/api/v3/append/email',
  'phone-append': 'https://v3.example.test/api/v3/append/phone',
  'email-lookup': 'https://v3.example.test/api/v3/lookup/email',
  'phone-lookup': 'https://v3.example.test/api/v3/lookup/phone',
  'email-verify': 'https://v2.example.test/v2/verify/email',
  'tcpa-verify': 'https://v2.example.test/v2/verify/tcpa',
  'id-verify': 'https://v2.example.test/v2/verify/id',
};

describe('buildRequest', () => {
  it.each(ALL_IDS)('%s: POST to its version group base, key and JSON headers, API field names', (id) => {
    const request = built(id);
    expect(request.method).toBe('POST');
    expect(request.url).toBe(URLS[id]);
    expect(request.headers).toEqual({ 'x-api-key': KEY, 'Content-Type': 'application/json' });
    expect(JSON.parse(request.body)).toEqual(VALID[id]);
  });

  it('sends the normalised values under the exact API names (TCPA in lowercase)', () => {
    const request = built('tcpa-verify', { Phone: '(555) 010-2030', LAST_NAME: ' Doe ' });
    expect(request.body).toBe('{"phone":"5550102030","last_name":"Doe"}');
    const demographic = built('demographic-append', {
      state: 'ma',
      city: 'Boston',
      phone: '555.010.2030',
      address1: '12 Main St',
      lname: 'Doe',
      fname: 'Jane',
    });
    expect(Object.keys(JSON.parse(demographic.body))).toEqual([
      'FName',
      'LName',
      'Address1',
      'City',
      'State',
      'Phone',
    ]);
  });

  it('joins a base with a trailing slash without doubling it', () => {
    const request = built('phone-lookup', VALID['phone-lookup'], {
      ...SETTINGS,
      baseUrlV3: 'https://v3.example.test/api//',
    });
    expect(request.url).toBe('https://v3.example.test/api/v3/lookup/phone');
  });

  it('has defaults for both bases, both HTTPS', () => {
    expect(DEFAULT_BASE_URL).toMatch(/^https:\/\/[^/]+$/);
    expect(DEFAULT_BASE_URL_V3).toMatch(/^https:\/\/[^/]+$/);
    const settings = { apiKey: KEY, baseUrl: DEFAULT_BASE_URL, baseUrlV3: DEFAULT_BASE_URL_V3 };
    expect(built('email-verify', VALID['email-verify'], settings).url).toBe(
      `${DEFAULT_BASE_URL}/v2/verify/email`,
    );
    expect(built('email-lookup', VALID['email-lookup'], settings).url).toBe(
      `${DEFAULT_BASE_URL_V3}/v3/lookup/email`,
    );
  });

  it('refuses to build without a key', () => {
    for (const apiKey of ['', '   ']) {
      expect(buildRequest(op('phone-lookup'), { Phone: '5550102030' }, { ...SETTINGS, apiKey })).toEqual({
        ok: false,
        message: 'No API key is set',
      });
    }
  });

  it.each([
    'http://api.example.com',
    'http://10.0.0.1:8080',
    'http://localhost.example.com',
    'http://127.0.0.1.nip.io',
    'http://[::2]:80',
    'http://0.0.0.0:8080',
  ])('refuses the non-HTTPS, non-loopback base %s', (baseUrl) => {
    const result = buildRequest(op('email-verify'), { Email: 'a@b.co' }, { ...SETTINGS, baseUrl });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.message).toMatch(/^Base URL \(v2\) must use https:\/\//);
      expect(result.message).not.toContain(KEY);
    }
  });

  it('checks the v3 base for v3 operations only', () => {
    const settings = { ...SETTINGS, baseUrlV3: 'http://api.example.com' };
    expect(buildRequest(op('email-verify'), { Email: 'a@b.co' }, settings).ok).toBe(true);
    expect(buildRequest(op('email-lookup'), { Email: 'a@b.co' }, settings)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^Base URL \(v3\) must use https:\/\//),
    });
  });

  it.each([
    'http://127.0.0.1:43123',
    'http://127.1.2.3',
    'http://localhost:8080',
    'http://LOCALHOST',
    'http://[::1]:9000/base',
    'https://api.example.com',
    'https://10.0.0.1:8443/x',
  ])('accepts %s', (baseUrl) => {
    const result = buildRequest(op('email-verify'), { Email: 'a@b.co' }, { ...SETTINGS, baseUrl });
    expect(result).toMatchObject({ ok: true, request: { url: `${baseUrl}/v2/verify/email` } });
  });

  it.each([
    '',
    'api.example.com',
    'ftp://api.example.com',
    'https://',
    'https://a b.com',
    'https://x.com/?q=1',
    'https://user@x.com',
  ])('refuses the malformed base %j', (url) => {
    expect(checkBaseUrl('Base URL', url)).toMatchObject({
      ok: false,
      message: expect.stringContaining('must be a URL'),
    });
  });

  it('knows loopback hosts', () => {
    expect(['localhost', '127.0.0.1', '127.255.0.9', '[::1]'].every(isLoopback)).toBe(true);
    expect(['localhost.', '128.0.0.1', '127.0.0.1.x', '::1', 'example.com'].some(isLoopback)).toBe(false);
  });
});

describe('redacted forms', () => {
  const request = built('demographic-append');

  it('redactRequest masks the key and keeps the rest', () => {
    const redacted = redactRequest(request);
    expect(JSON.stringify(redacted)).not.toContain(KEY);
    expect(redacted.headers['x-api-key']).toBe('[redacted]');
    expect(redacted.url).toBe(request.url);
    expect(redacted.body).toBe(request.body);
    expect(redacted.headers['Content-Type']).toBe('application/json');
    // The original is untouched.
    expect(request.headers['x-api-key']).toBe(KEY);
  });

  it('redactRequest masks the header whatever its case', () => {
    const shouted: HttpRequest = { ...request, headers: { 'X-API-KEY': KEY } };
    expect(JSON.stringify(redactRequest(shouted))).not.toContain(KEY);
  });

  it('toCurl reads the key from $ENRICH_API_KEY and is a working command', () => {
    const curl = toCurl(request);
    expect(curl).not.toContain(KEY);
    expect(curl).toBe(
      [
        "curl -X POST 'https://v2.example.test/v2/append/demographic'",
        '-H "x-api-key: $ENRICH_API_KEY"',
        "-H 'Content-Type: application/json'",
        `--data '${request.body}'`,
      ].join(' \\\n  '),
    );
  });

  it('toCurl quotes a body with a single quote in it', () => {
    const curl = toCurl(built('tcpa-verify', { phone: '5550102030', last_name: "O'Brien" }));
    expect(curl).toContain(`--data '{"phone":"5550102030","last_name":"O'\\''Brien"}'`);
  });

  it('never holds the key, for any key, operation and input', () => {
    const key = fc.string({
      unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789_-'.split('')),
      minLength: 16,
      maxLength: 64,
    });
    fc.assert(
      fc.property(key, fc.constantFrom(...OPERATIONS), (apiKey, o) => {
        const result = buildRequest(o, o.example, { ...SETTINGS, apiKey });
        if (!result.ok) throw new Error(result.message);
        expect(result.request.headers['x-api-key']).toBe(apiKey);
        expect(JSON.stringify(redactRequest(result.request))).not.toContain(apiKey);
        expect(toCurl(result.request)).not.toContain(apiKey);
      }),
    );
  });
});
