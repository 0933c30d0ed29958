// Whose answers the cache holds (files.ts): the namespace is the normalised origin of the base the
// operation uses, so that every spelling of one service shares its answers, and another service's
// answers are never taken for its own.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getOperation } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { runBulk } from '../src/run/run-bulk.js';
import { CACHE_FILE, cacheNamespace, normaliseBase } from '../src/store/files.js';
import { useSandbox, writeCsv } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

const at = useSandbox();

describe('the cache namespace', () => {
  it('is the normalised origin: scheme, lower-case host, no default port, no trailing slash', () => {
    expect(normaliseBase('https://API.Example.COM:443/')).toBe('https://api.example.com');
    expect(normaliseBase('https://api.example.com')).toBe('https://api.example.com');
    expect(normaliseBase('http://127.0.0.1:80')).toBe('http://127.0.0.1');
    expect(normaliseBase('https://api.example.com:8443/prod/')).toBe('https://api.example.com:8443/prod');
    const lookup = getOperation('phone-lookup');
    const a = { baseUrl: 'https://x.io', baseUrlV3: 'https://V3.Example.com:443/', sandbox: false };
    expect(cacheNamespace(lookup, a)).toBe('https://v3.example.com');
  });

  it("answers journaled under another spelling of the same base are reused; another service's are not", async () => {
    const { dir, server } = at;
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const base = server.url;
    // A run against the sandbox as a real service at baseUrlV3: the engine names its namespace.
    const runAt = (baseUrlV3: string) =>
      runBulk(
        sandboxRun(
          server,
          { inPath: join(dir, 'in.csv'), outPath: join(dir, 'out.csv') },
          { bases: { baseUrl: base, baseUrlV3, sandbox: false } },
        ),
      );
    const first = await runAt(`${base}/`);
    expect(first).toMatchObject({ transactions: 2 });
    const again = await runAt(base);
    expect(again).toMatchObject({ fromCache: 2, transactions: 0 });
    // The same journal filed under another service (as a run against a second provider writes it).
    const cache = join(dir, CACHE_FILE);
    const other = readFileSync(cache, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.stringify({ ...JSON.parse(l), ns: 'https://other.example.com' }));
    writeFileSync(cache, `${other.join('\n')}\n`);
    const elsewhere = await runAt(base);
    expect(elsewhere).toMatchObject({ fromCache: 0, transactions: 2 });
    expect(server.sandbox.transactions()).toBe(4);
  });
});
