// The hostile-service suite (issue 8, must-show 1), CLI side: one test per row of the table
// and per item that applies to the CLI, over real HTTP. Each compares what the service counted
// with what the journal holds, what the output holds, and the exit code. Scenarios live in
// hostile-scenarios.ts (scripts/hostile-report.ts prints the same measurements). Elsewhere:
// signals.test.ts (Ctrl-C, SIGTERM: item 4), the engine's journal, locks and same-file tests in
// packages/bulk/test (item 6), process.test.ts (SIGKILL at random points, disk full on a tmpfs),
// key-leak.test.ts (must-show 3).
import { readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { parseLine } from '@enrich/bulk';
import { DEMO_KEY } from '@enrich/sandbox';
import { describe, expect, it } from 'vitest';
import { connect } from '../src/connection.js';
import { CACHE_FILE } from '../src/main.js';
import { runCli, sandboxEnv, startServer, tempDir } from './helpers.js';
import type { Measured } from './hostile-measure.js';
import { SCENARIOS } from './hostile-scenarios.js';

const scenario = (id: string) => {
  const found = SCENARIOS.find((s) => s.id === id);
  if (!found) throw new Error(id);
  return found.run();
};

/** Every paid answer the service counted is in the journal, and nothing else is. */
function journalMatchesService(m: Measured): void {
  expect(m.journal).toBe(m.counted);
}

describe('the service misbehaves (issue 8 table)', () => {
  it('307 to another host: not followed, nothing sent there; the run stops and says where it pointed', async () => {
    const m = await scenario('redirect');
    expect(m.more.decoyHits).toBe(0);
    expect(m.requests).toBe(1); // the first request; the rest are not sent
    expect(m.counted).toBe(0);
    journalMatchesService(m);
    expect(m.rows[0]?.status).toMatch(/^error: .*307.*127\.0\.0\.1/);
    expect(m.rows.slice(1).every((r) => r.status?.startsWith('error: not sent'))).toBe(true);
    expect(m.code).toBe(7);
  });

  it('200 with documented fields in another case: the columns are filled, and the status says so', async () => {
    const m = await scenario('other-case');
    expect(m.counted).toBe(3);
    journalMatchesService(m);
    for (const row of m.rows) {
      expect(row.status).toMatch(/^ok \(\d+ fields not as documented\)$/);
      expect(row.FName).not.toBe('');
      expect(row.City).not.toBe('');
    }
    expect(m.code).toBe(0);
  });

  it('unknown fields in a 200 become extra columns after the documented ones', async () => {
    const m = await scenario('extra-fields');
    expect(m.counted).toBe(3);
    journalMatchesService(m);
    expect(m.extraColumns).toEqual(expect.arrayContaining(['DID', 'telcoName']));
    const header = m.header ?? [];
    expect(header.indexOf('DID')).toBeGreaterThan(header.indexOf('trace'));
    expect(header.at(-1)).toBe('status');
    for (const row of m.rows) {
      expect(row.DID).not.toBe('');
      expect(row.status).toMatch(/^ok \(\d+ fields? not as documented\)$/);
    }
    expect(m.code).toBe(0);
  });

  it('a value of an unexpected type is kept as text, never a reason to discard the record', async () => {
    const m = await scenario('wrong-types');
    expect(m.counted).toBe(3);
    journalMatchesService(m);
    for (const row of m.rows) {
      expect(row.status).toMatch(/^ok \(/);
      expect(row.Deliverable).toBe('Y');
      expect(row.City).not.toBe('');
    }
    // Name arrived as one string: kept, as an extra column named Name.
    expect(m.extraColumns).toContain('Name');
    expect(m.code).toBe(0);
  });

  it('an HTML 200 is a paid, unreadable answer: journaled with what arrived, never resent, --retry-unreadable asks again stating the cost', async () => {
    const m = await scenario('html-200');
    expect(m.counted).toBe(3);
    journalMatchesService(m);
    expect(m.journalUnreadable).toBe(3);
    expect(readFileSync(join(m.dir, CACHE_FILE), 'utf8')).toContain('<html');
    expect(m.rows.every((r) => r.status?.startsWith('paid, unreadable: '))).toBe(true);
    expect(m.stderr).toMatch(
      /not asked again automatically\. --retry-unreadable asks again, at one transaction each/,
    );
    expect(m.code).toBe(7);
    expect(m.more.rerunRequests).toBe(0);
    expect(m.more.dryRunTransactions).toBe(3);
    expect(m.more.retryRequests).toBe(3);
    expect(m.more.retryCounted).toBe(3);
    expect(m.more.retryNote).toBe('cost stated');
  });

  it('a 200 whose body breaks off is paid and unreadable: sent once, not five times', async () => {
    const m = await scenario('cut-body');
    expect(m.requests).toBe(3);
    expect(m.counted).toBe(3);
    journalMatchesService(m);
    expect(m.journalUnreadable).toBe(3);
    expect(m.rows.every((r) => /^paid, unreadable: .*broke off/.test(r.status ?? ''))).toBe(true);
    expect(m.more.rerunRequests).toBe(0);
    expect(m.code).toBe(7);
  });

  it('a 200 too big to read is paid and unreadable: sent once', async () => {
    const m = await scenario('huge-body');
    expect(m.requests).toBe(3);
    expect(m.counted).toBe(3);
    journalMatchesService(m);
    expect(m.journalUnreadable).toBe(3);
    expect(m.rows.every((r) => /^paid, unreadable: .*size limit/.test(r.status ?? ''))).toBe(true);
    // The journal keeps what arrived, capped.
    for (const text of readFileSync(join(m.dir, CACHE_FILE), 'utf8').trim().split('\n')) {
      const line = parseLine(text);
      expect(line?.outcome.kind).toBe('unreadable');
      expect(text.length).toBeLessThan(200_000);
    }
    expect(m.code).toBe(7);
  });

  it('429 with Retry-After: 99999 stops the run at once with the allowance code and says when to resume', async () => {
    const m = await scenario('retry-after-huge');
    expect(m.ms).toBeLessThan(5000);
    expect(m.counted).toBe(0);
    journalMatchesService(m);
    expect(m.code).toBe(5);
    expect(m.stdout).toMatch(/run the same command again after \d{4}-\d\d-\d\dT[\d:.]+Z/);
    expect(m.rows.slice(1).every((r) => r.status?.includes('Retry-After'))).toBe(true);
  });

  it('Retry-After as an HTTP date is honoured', async () => {
    const m = await scenario('retry-after-date');
    expect(m.requests).toBe(2);
    expect(m.ms).toBeGreaterThanOrEqual(900);
    expect(m.counted).toBe(1);
    journalMatchesService(m);
    expect(m.rows[0]?.status).toBe('ok');
    expect(m.code).toBe(0);
  });

  it('a body that trickles: --timeout is one deadline over the whole exchange; the paid answer is kept as unreadable', async () => {
    const m = await scenario('trickle');
    // Three rows, one at a time, each cut at the 3 s deadline (an idle timer would never fire).
    expect(m.ms).toBeLessThan(15_000);
    expect(m.requests).toBe(3);
    expect(m.counted).toBe(3);
    journalMatchesService(m);
    expect(m.rows.every((r) => r.status?.startsWith('paid, unreadable'))).toBe(true);
  }, 30_000);

  it('a key holding a newline is refused before any request, without printing it', async () => {
    const m = await scenario('key-newline');
    expect(m.requests).toBe(0);
    expect(m.code).toBe(4);
    expect(m.stderr).toMatch(/line break/);
    expect(m.stderr + m.stdout).not.toContain(DEMO_KEY);
    expect(m.stderr + m.stdout).not.toContain('second-line-of-keyfile');
  });

  it('a null line in the journal is skipped and counted; only what is missing is bought', async () => {
    const m = await scenario('journal-null-line');
    expect(m.code).toBe(0);
    expect(m.counted).toBe(2);
    expect(m.journal).toBe(3);
    expect(m.stderr).toMatch(/2 lines of the answer cache could not be read .* skipped/);
    expect(m.statuses).toEqual({ ok: 3 });
  });

  it('--cache pointed at the input is refused; the input is untouched', async () => {
    const m = await scenario('cache-is-input');
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/name the same file/);
    expect(m.requests).toBe(0);
    expect(m.more.input).toBe('unchanged');
  });

  it('a 120 KB e-mail cell costs nothing and no time; an invisible character is normalised away, not paid twice', async () => {
    const m = await scenario('huge-email-cell');
    expect(m.ms).toBeLessThan(3000);
    expect(m.requests).toBe(1);
    expect(m.counted).toBe(1);
    journalMatchesService(m);
    expect(m.rows[0]?.status).toMatch(/^invalid: /);
    expect(m.statuses).toEqual({ invalid: 1, ok: 2 });
  });
});

describe('a client dropping mid-request (item 9)', () => {
  it('does not take down the embedded sandbox of a --sandbox run', async () => {
    // The very server --sandbox starts in the command's own process.
    const conn = await connect({ sandbox: true }, { env: {}, stdin: process.stdin, stderr: process.stderr });
    try {
      const url = new URL(conn.settings.baseUrl);
      // A request that stops half-way through its body, then a client gone while a trickling answer is sent.
      await new Promise<void>((resolve) => {
        const socket = createConnection(Number(url.port), url.hostname, () => {
          socket.write('POST /v3/lookup/phone HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n');
          socket.write(`x-api-key: ${conn.settings.apiKey}\r\nContent-Length: 100\r\n\r\n{"Pho`);
          setTimeout(() => {
            socket.destroy();
            resolve();
          }, 50);
        });
      });
      const controller = new AbortController();
      const dropped = fetch(`${conn.settings.baseUrl}/v3/lookup/phone`, {
        method: 'POST',
        headers: {
          'x-api-key': conn.settings.apiKey,
          'content-type': 'application/json',
          'x-sandbox-misbehave': 'trickle',
        },
        body: JSON.stringify({ Phone: '5551000001' }),
        signal: controller.signal,
      }).then((r) => r.text());
      setTimeout(() => controller.abort(), 300);
      await expect(dropped).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 100));
      const after = await fetch(`${conn.settings.baseUrl}/v3/lookup/phone`, {
        method: 'POST',
        headers: { 'x-api-key': conn.settings.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ Phone: '5551000002' }),
      });
      expect(after.status).toBe(200);
    } finally {
      await conn.close();
    }
  });
});

describe('enrich check-key (item 8)', () => {
  it('reports each base: accepted (400), refused (401), or what else came back; spends nothing', async () => {
    const server = await startServer();
    try {
      const env = sandboxEnv(server);
      const ok = await runCli(['check-key'], { env, cwd: tempDir() });
      expect(ok.code).toBe(0);
      expect(ok.stdout).toMatch(/key accepted/);
      const refused = await runCli(['check-key', '--json'], {
        env: sandboxEnv(server, 'not-the-key-000'),
        cwd: tempDir(),
      });
      expect(refused.code).toBe(4);
      expect(JSON.parse(refused.stdout)[0]).toMatchObject({ verdict: 'refused' });
      expect(refused.stdout).not.toContain('not-the-key-000');
      server.sandbox.configure({ misbehave: ['redirect'] });
      const odd = await runCli(['check-key'], { env, cwd: tempDir() });
      expect(odd.code).toBe(7);
      expect(odd.stdout).toMatch(/could not tell.*307/);
      expect(server.decoy.hits()).toBe(0);
      expect(server.sandbox.transactions()).toBe(0);
    } finally {
      await server.close();
    }
  });

  it('v2 and v3 on separate hosts: both are checked, one unreachable', async () => {
    const server = await startServer();
    const closed = await startServer();
    const gone = closed.url;
    await closed.close();
    try {
      const ran = await runCli(['check-key', '--json', '--base-url', server.url, '--base-url-v3', gone], {
        env: { ENRICH_API_KEY: DEMO_KEY },
        cwd: tempDir(),
      });
      const results = JSON.parse(ran.stdout) as { base: string; verdict: string }[];
      expect(results.map((r) => r.verdict)).toEqual(['accepted', 'unreachable']);
      expect(ran.code).toBe(7);
    } finally {
      await server.close();
    }
  });
});
