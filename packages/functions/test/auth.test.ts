// Callers are authenticated, and the server does not start without a way to do it; the start's
// flags and environment (PORT, --port, the key, --no-auth on loopback only) and the refusals a
// caller meets (401 without or with a wrong token, on every POST path; /healthz open).
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bigQueryBody,
  type Instance,
  post,
  serviceEnv,
  spawnInstance,
  startInstance,
  startSandbox,
  TOKEN,
} from './helpers.js';

let sandbox: SandboxServer;
let instance: Instance;

beforeAll(async () => {
  sandbox = await startSandbox();
  instance = await startInstance({ args: ['--port', '0'], env: serviceEnv(sandbox) });
});

afterAll(async () => {
  await instance?.stop();
  await sandbox?.close();
});

/** Runs the server expecting it to refuse to start: its exit code and what it said. */
async function refusedStart(args: readonly string[], env: Record<string, string>) {
  const { child, output } = spawnInstance({ args, env });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, said: output() };
}

describe('starting', () => {
  it('refuses to start without a way to authenticate callers, saying the three ways', async () => {
    const env = serviceEnv(sandbox);
    const { ENRICH_FUNCTIONS_TOKEN: _token, ...noToken } = env;
    const { code, said } = await refusedStart(['--port', '0'], noToken);
    expect(code).toBe(2);
    expect(said).toMatch(/No way to authenticate callers/);
    expect(said).toMatch(/ENRICH_FUNCTIONS_TOKEN.*--auth platform.*--no-auth/);
  });

  it('refuses --no-auth on an address other than loopback, a short token, and no key', async () => {
    const env = serviceEnv(sandbox);
    const { ENRICH_FUNCTIONS_TOKEN: _token, ...noToken } = env;
    const open = await refusedStart(['--no-auth', '--host', '0.0.0.0', '--port', '0'], noToken);
    expect(open.code).toBe(2);
    expect(open.said).toMatch(/--no-auth listens on a loopback address only/);
    const short = await refusedStart(['--port', '0'], { ...env, ENRICH_FUNCTIONS_TOKEN: 'short' });
    expect(short.code).toBe(2);
    expect(short.said).toMatch(/at least 16 characters/);
    expect(short.said).not.toContain('short\n');
    const { ENRICH_API_KEY: _key, ...noKey } = env;
    const keyless = await refusedStart(['--port', '0'], noKey);
    expect(keyless.code).toBe(2);
    expect(keyless.said).toMatch(/No API key: set ENRICH_API_KEY/);
    const both = await refusedStart(['--port', '0', '--auth', 'platform'], env);
    expect(both.said).toMatch(/unset one of them/);
  });

  it('refuses a monthly cap that is not a whole number, naming the flag or the variable and the rule', async () => {
    const env = serviceEnv(sandbox);
    const viaEnv = await refusedStart(['--port', '0'], { ...env, ENRICH_MAX_TRANSACTIONS_PER_MONTH: '1e3' });
    expect(viaEnv.code).toBe(2);
    expect(viaEnv.said).toMatch(
      /ENRICH_MAX_TRANSACTIONS_PER_MONTH must be a whole number of transactions, 0 or more; got "1e3"/,
    );
    const viaFlag = await refusedStart(['--port', '0', '--max-transactions-per-month', '2.5'], env);
    expect(viaFlag.code).toBe(2);
    expect(viaFlag.said).toMatch(/--max-transactions-per-month must be a whole number of transactions/);
  });

  it('takes the port from PORT (as Cloud Run sets it), --port first', async () => {
    const env = serviceEnv(sandbox);
    const bad = await refusedStart([], { ...env, PORT: 'eighty' });
    expect(bad.code).toBe(2);
    expect(bad.said).toMatch(/--port \(PORT\) must be a whole number from 0 to 65535; got "eighty"/);
    const fromEnv = await startInstance({ env: { ...env, PORT: '0' } });
    expect(fromEnv.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fromEnv.output()).toMatch(/listening on http:\/\/0\.0\.0\.0:\d+/);
    await fromEnv.stop();
    const noAuth = await startInstance({
      args: ['--no-auth', '--port', '0'],
      env: { ...env, ENRICH_FUNCTIONS_TOKEN: '', PORT: '1' },
    });
    expect(noAuth.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const answer = await post(
      noAuth.url,
      '/bigquery',
      bigQueryBody({ operation: 'email-verify' }, [['a@b']]),
      {},
    );
    expect(answer.status).toBe(200);
    expect(await noAuth.stop()).toBe(0);
  });
});

describe('callers', () => {
  const body = bigQueryBody({ operation: 'phone-lookup' }, [['5550102030']]);

  it('refuses a request without a token, or with another one, on every path, spending nothing', async () => {
    const before = sandbox.sandbox.requests();
    for (const path of ['/bigquery', '/snowflake/phone-lookup', '/rows']) {
      const tries: Record<string, string>[] = [
        {},
        { authorization: 'Bearer not-the-token-0123456789' },
        { 'sf-custom-token': `${TOKEN}x` },
        { authorization: TOKEN },
      ];
      for (const headers of tries) {
        const answer = await post(instance.url, path, body, headers);
        expect(answer.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe('Bearer');
        expect(answer.json.errorMessage).toMatch(/^Not authenticated/);
      }
    }
    expect(sandbox.sandbox.requests()).toBe(before);
  });

  it("takes the token as a bearer or as Snowflake's sf-custom-token", async () => {
    expect((await post(instance.url, '/bigquery', body, { authorization: `Bearer ${TOKEN}` })).status).toBe(
      200,
    );
    const rows = { operation: 'phone-lookup', rows: [{ Phone: '5550102030' }] };
    expect((await post(instance.url, '/rows', rows, { 'sf-custom-token': TOKEN })).status).toBe(200);
  });

  it('answers GET /healthz without a credential, and nothing else on other paths', async () => {
    const health = await fetch(`${instance.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', version: expect.stringMatching(/^\d+\.\d+\.\d+/) });
    expect((await fetch(`${instance.url}/admin`)).status).toBe(404);
    expect((await fetch(`${instance.url}/bigquery`)).status).toBe(405);
  });

  it('with --auth platform, requires the bearer token the platform checked', async () => {
    const env = serviceEnv(sandbox, { ENRICH_FUNCTIONS_TOKEN: '' });
    const platform = await startInstance({ args: ['--auth', 'platform', '--port', '0'], env });
    try {
      expect((await post(platform.url, '/bigquery', body, {})).status).toBe(401);
      const idToken = 'eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwczovL3gifQ.SIGNATURE_REMOVED_BY_GOOGLE';
      expect(
        (await post(platform.url, '/bigquery', body, { authorization: `Bearer ${idToken}` })).status,
      ).toBe(200);
    } finally {
      await platform.stop();
    }
  });
});
