// The real `enrich` binary as a child process: its exit codes.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_KEY, RESERVED } from '@enrich/sandbox';
import { describe, expect, it } from 'vitest';
import { phone, sandboxEnv, spawnCli, startServer, tempDir, writeCsv } from './helpers.js';
import { env, server, useSandbox } from './process-setup.js';

useSandbox();

const reservedPhone = (outcome: string) => RESERVED.find((r) => r.outcome === outcome)?.phone ?? '';

describe('exit codes', () => {
  const run = (args: string[], extraEnv: Record<string, string> = env) =>
    spawnCli(args, { env: extraEnv, cwd: tempDir() }).done;

  it('0 with the record as a table, or JSON', async () => {
    const table = await run(['Phone Lookup', '--phone', '(555) 100-0001']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^Phone Lookup: Phone 5551000001\n\nFName +\S+/);
    const json = await run(['tcpa-verify', '--PHONE', '5551000001', '--last_name', 'Doe', '--json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      operation: 'tcpa-verify',
      input: { phone: '5551000001', last_name: 'Doe' },
      outcome: 'record',
    });
  });

  it('shows the likely meaning beside a coded value, marked as likely', async () => {
    const table = await run(['tcpa-verify', '--phone', '5551000001', '--last-name', 'Doe']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/phone_type +[LVWO] {2}\(likely: (landline|VoIP|wireless|other)\)/);
    const json = await run(['tcpa-verify', '--phone', '5551000001', '--last-name', 'Doe', '--json']);
    expect(JSON.parse(json.stdout).record.phone_type).toMatch(/^[LVWO]$/);
  });

  it('2 for usage errors: unknown operation, unknown flag, no input', async () => {
    expect((await run(['phone-lookups', '--Phone', '5551000001'])).code).toBe(2);
    expect((await run(['phone-lookup', '--shoe', '5'])).code).toBe(2);
    const none = await run(['phone-lookup']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/--Phone/);
    expect(server.sandbox.requests()).toBe(0);
  });

  it('a one-off call with --cache pays once: the same call again is answered from the cache', async () => {
    const cwd = tempDir();
    const args = ['phone-lookup', '--Phone', '(555) 100-0002', '--cache', 'answers.jsonl', '--json'];
    const first = await spawnCli(args, { env, cwd }).done;
    expect(first.code).toBe(0);
    expect(server.sandbox.transactions()).toBe(1);
    const again = await spawnCli(
      ['phone-lookup', '--Phone', '5551000002', '--cache', 'answers.jsonl', '--json'],
      {
        env,
        cwd,
      },
    ).done;
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    expect(again.stderr).toMatch(/no transaction spent/);
    expect(server.sandbox.requests()).toBe(1);
    expect(readFileSync(join(cwd, 'answers.jsonl'), 'utf8')).not.toContain(DEMO_KEY);
    // A no-match is paid for too, so it is kept as well.
    const none = ['phone-lookup', '--Phone', reservedPhone('no-match'), '--cache', 'answers.jsonl'];
    expect((await spawnCli(none, { env, cwd }).done).code).toBe(6);
    expect((await spawnCli(none, { env, cwd }).done).code).toBe(6);
    expect(server.sandbox.transactions()).toBe(2);
  });

  it('a one-off call says what it cost, after its answer (issue 40)', async () => {
    const paid = await run(['phone-lookup', '--Phone', '5551000003']);
    expect(paid.stderr).toBe('Spent: 1 transaction of the sandbox: synthetic data, nothing billed.\n');
    const none = await run(['phone-lookup', '--Phone', reservedPhone('no-match')]);
    expect(none.stderr).toContain(
      'Spent: 1 transaction of the sandbox (a no match is paid too): synthetic data, nothing billed.',
    );
    const refused = await run(['phone-lookup', '--Phone', '5551000004'], sandboxEnv(server, 'not-the-key'));
    expect(refused.stderr).toMatch(/Spent: nothing \(no answer was paid for\)\.\n$/);
    const invalid = await run(['phone-lookup', '--Phone', '555100001']);
    expect(invalid.stderr).toContain('Nothing was sent: no transaction spent.');
  }, 30_000);

  it('3 for invalid input, caught before anything is sent', async () => {
    const ran = await run(['phone-lookup', '--Phone', '555100001']);
    expect(ran.code).toBe(3);
    expect(ran.stderr).toMatch(/Phone must be 10 digits; got 9/);
    expect(server.sandbox.requests()).toBe(0);
  });

  it('4 when no key is set (saying so), or the key is refused', async () => {
    const none = await run(['phone-lookup', '--Phone', '5551000001'], {});
    expect(none.code).toBe(4);
    expect(none.stderr).toMatch(/No API key and no base URL/);
    expect(none.stderr).toMatch(/--sandbox/);
    const refused = await run(['phone-lookup', '--Phone', '5551000001'], sandboxEnv(server, 'wrong-key'));
    expect(refused.code).toBe(4);
    expect(refused.stderr).toMatch(/401/);
    expect(refused.stderr).not.toContain('wrong-key');
  });

  it('5 when the allowance is used up (429)', async () => {
    const ran = await run(['phone-lookup', '--Phone', reservedPhone('allowance'), '--max-attempts', '1']);
    expect(ran.code).toBe(5);
    expect(ran.stderr).toMatch(/429/);
  });

  it('6 for no match (204) and too many matches (440)', async () => {
    const none = await run(['phone-lookup', '--Phone', reservedPhone('no-match')]);
    expect(none.code).toBe(6);
    expect(none.stdout).toMatch(/No match/);
    expect((await run(['phone-lookup', '--Phone', reservedPhone('too-many')])).code).toBe(6);
  });

  it('7 for service errors (500) and an unreachable service', async () => {
    expect((await run(['phone-lookup', '--Phone', reservedPhone('fault'), '--max-attempts', '1'])).code).toBe(
      7,
    );
    const closed = await startServer();
    const url = closed.url;
    await closed.close();
    const down = await run(['phone-lookup', '--Phone', '5551000001', '--max-attempts', '1'], {
      ENRICH_API_KEY: DEMO_KEY,
      ENRICH_BASE_URL: url,
      ENRICH_BASE_URL_V3: url,
    });
    expect(down.code).toBe(7);
    expect(down.stderr).toMatch(/Could not reach the service at 127\.0\.0\.1/);
  });

  it('8 when a bulk run stops at its budget', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)], [phone(2)]]);
    const ran = await spawnCli(['phone-lookup', '--in', 'in.csv', '--max-transactions', '1'], {
      env,
      cwd: dir,
    }).done;
    expect(ran.code).toBe(8);
    expect(server.sandbox.transactions()).toBe(1);
    expect(existsSync(join(dir, 'in.phone-lookup.csv'))).toBe(true);
  });

  it('--sandbox needs no key at all', async () => {
    const ran = await run(['phone-lookup', '--sandbox', '--Phone', '5551000001', '--json'], {});
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.stdout).outcome).toBe('record');
  });
});
