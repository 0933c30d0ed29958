// createClient without options reads the environment, as the CLI and the MCP server do (issue 40),
// and refuses a sandbox given for one version only (the other half would go to the real service).
import { afterEach, describe, expect, it } from 'vitest';
import { createClient } from '../src/sdk.js';

const NAMES = ['ENRICH_API_KEY', 'ENRICH_BASE_URL', 'ENRICH_BASE_URL_V3'] as const;

function recordingFetch() {
  const urls: string[] = [];
  const headers: Array<Record<string, string>> = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    urls.push(String(url));
    headers.push(init?.headers as Record<string, string>);
    return new Response(null, { status: 204 });
  };
  return { fetch: fetch as typeof globalThis.fetch, urls, headers };
}

afterEach(() => {
  for (const name of NAMES) delete process.env[name];
});

describe('createClient and the environment', () => {
  it('takes the key and both bases from ENRICH_API_KEY, ENRICH_BASE_URL and ENRICH_BASE_URL_V3', async () => {
    process.env.ENRICH_API_KEY = 'env-key-1';
    process.env.ENRICH_BASE_URL = 'http://127.0.0.1:9/two';
    process.env.ENRICH_BASE_URL_V3 = 'http://127.0.0.1:9/three';
    const { fetch, urls, headers } = recordingFetch();
    const client = createClient({ fetch });
    await client.emailVerify({ Email: 'jane@example.com' });
    await client.phoneLookup({ Phone: '5550102030' });
    expect(urls).toEqual([
      'http://127.0.0.1:9/two/v2/verify/email',
      'http://127.0.0.1:9/three/v3/lookup/phone',
    ]);
    expect(headers.map((h) => h['x-api-key'])).toEqual(['env-key-1', 'env-key-1']);
  });

  it('lets an option win over its variable, and takes undefined as an option left out', async () => {
    process.env.ENRICH_API_KEY = 'env-key-1';
    process.env.ENRICH_BASE_URL = 'http://127.0.0.1:9';
    process.env.ENRICH_BASE_URL_V3 = 'http://127.0.0.1:9';
    const { fetch, urls, headers } = recordingFetch();
    const client = createClient({
      apiKey: 'option-key',
      baseUrl: 'https://v2.example.com',
      baseUrlV3: undefined,
      fetch,
    });
    await client.emailVerify({ Email: 'jane@example.com' });
    await client.phoneLookup({ Phone: '5550102030' });
    expect(urls).toEqual(['https://v2.example.com/v2/verify/email', 'http://127.0.0.1:9/v3/lookup/phone']);
    expect(headers[0]?.['x-api-key']).toBe('option-key');
  });

  it('says where a key may come from when there is none', () => {
    expect(() => createClient()).toThrow('apiKey is required (pass { apiKey }, or set ENRICH_API_KEY)');
  });

  it('refuses a local base for one version only, naming the operations that would leave and the fix', () => {
    expect(() => createClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:8787' })).toThrow(
      'createClient: baseUrl is a local server but baseUrlV3 is not set, so Email Append, Phone Append, Email Lookup, Phone Lookup would go to https://testapi.tdg1.io; set baseUrlV3 to the same URL (the sandbox serves both)',
    );
    expect(() => createClient({ apiKey: 'k', baseUrlV3: 'http://localhost:8787' })).toThrow(
      /baseUrlV3 is a local server but baseUrl is not set, so Auto Append, Demographic Append, Email Verify, TCPA Verify, ID Verify would go to https:\/\/api\.tdg1\.io/,
    );
    process.env.ENRICH_BASE_URL_V3 = 'http://127.0.0.1:8787';
    expect(() => createClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:8787' })).not.toThrow();
    // A real service for one version and its default for the other is a choice, not a slip.
    expect(() => createClient({ apiKey: 'k', baseUrl: 'https://proxy.example.com' })).not.toThrow();
  });
});
