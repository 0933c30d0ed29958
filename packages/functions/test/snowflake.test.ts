// Snowflake external functions, replayed as the documentation gives them
// (https://docs.snowflake.com/sql-reference/external-functions-data-format): a POST whose body is
// {"data": [[row number, args...], ...]} with the headers sf-external-function-format ("json"),
// -format-version ("1.0"), -current-query-id, -query-batch-id, -name, -signature, -return-type and
// their -base64 forms; the function's HEADERS arrive prefixed `sf-custom-`
// (https://docs.snowflake.com/sql-reference/sql/create-external-function, HEADERS and COMPRESSION).
// The answer is {"data": [[row number, value], ...]}, the same row numbers in the same order, with
// 200; Snowflake retries 429, 5xx and network errors, and may send a batch again after a success
// with the same batch id (external-functions-best-practices, "Do not assume that the remote service
// is passed each row exactly once").
import { gzipSync } from 'node:zlib';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Instance, phones, post, serviceEnv, startInstance, startSandbox, TOKEN } from './helpers.js';

let sandbox: SandboxServer;
let instance: Instance;

beforeAll(async () => {
  sandbox = await startSandbox({ latencyMs: 30 });
  instance = await startInstance({ env: serviceEnv(sandbox) });
});

afterAll(async () => {
  await instance?.stop();
  await sandbox?.close();
});

const b64 = (text: string) => Buffer.from(text).toString('base64');

/** The headers Snowflake sends, as the data-format page lists them, plus the function's HEADERS. */
function snowflakeHeaders(
  options: { operation?: string; batch?: string; query?: string; custom?: Record<string, string> } = {},
): Record<string, string> {
  const query = options.query ?? '01b02bdf-0001-7b58-0003-27d60056b5a6';
  const name = 'PHONE_LOOKUP';
  const signature = '(PHONE VARCHAR)';
  return {
    'sf-external-function-format': 'json',
    'sf-external-function-format-version': '1.0',
    'sf-external-function-current-query-id': query,
    'sf-external-function-query-batch-id':
      options.batch ?? `${query}:1:1:0:${Math.floor(Math.random() * 1e6)}`,
    'sf-external-function-name': name,
    'sf-external-function-name-base64': b64(name),
    'sf-external-function-signature': signature,
    'sf-external-function-signature-base64': b64(signature),
    'sf-external-function-return-type': 'VARIANT',
    'sf-external-function-return-type-base64': b64('VARIANT'),
    'user-agent': 'snowflake/1.0',
    'sf-custom-token': TOKEN,
    ...(options.operation ? { 'sf-custom-operation': options.operation } : {}),
    ...options.custom,
  };
}

const rowsOf = (values: readonly string[]) => values.map((value, i) => [i, value]);

describe('POST /snowflake', () => {
  it("answers the documentation's example body with the same row numbers, in order", async () => {
    // The page's example, a function f(integer, varchar, timestamp), given to Phone Append (FName,
    // LName, Address1, Zip): its rows lack a Zip, so each is invalid and nothing is spent.
    const body = {
      data: [
        [0, 10, 'Alex', '2014-01-01 16:00:00'],
        [1, 20, 'Steve', '2015-01-01 16:00:00'],
        [2, 30, 'Alice', '2016-01-01 16:00:00'],
        [3, 40, 'Adrian', '2017-01-01 16:00:00'],
      ],
    };
    const before = sandbox.sandbox.transactions();
    const answer = await post(
      instance.url,
      '/snowflake',
      body,
      snowflakeHeaders({ operation: 'phone-append' }),
    );
    expect(answer.status).toBe(200);
    const data = answer.json.data as [number, { status: string }][];
    expect(data.map(([row]) => row)).toEqual([0, 1, 2, 3]);
    for (const [, reply] of data) expect(reply.status).toMatch(/^invalid: .*Zip/);
    expect(sandbox.sandbox.transactions()).toBe(before);
  });

  it('takes the operation from the sf-custom-operation header or the path, and reads records', async () => {
    const values = phones(3, 5000);
    const byHeader = await post(
      instance.url,
      '/snowflake',
      { data: rowsOf(values) },
      snowflakeHeaders({ operation: 'phone-lookup' }),
    );
    const byPath = await post(
      instance.url,
      '/snowflake/phone-lookup',
      { data: rowsOf(values) },
      snowflakeHeaders(),
    );
    expect(byHeader.status).toBe(200);
    expect(byPath.json).toEqual(byHeader.json);
    const [, first] = (byHeader.json.data as [number, Record<string, unknown>][])[0] ?? [];
    expect(first).toMatchObject({
      status: 'ok',
      Name: { FName: expect.any(String) },
      Address: expect.any(Object),
    });
    const both = await post(
      instance.url,
      '/snowflake/email-verify',
      { data: rowsOf(values) },
      snowflakeHeaders({ operation: 'phone-lookup' }),
    );
    expect(both.status).toBe(400);
    expect(both.json.errorMessage).toMatch(/name two operations/);
  });

  it('keeps row numbers as sent, even out of order', async () => {
    const [a, b] = phones(2, 5100);
    const answer = await post(
      instance.url,
      '/snowflake',
      {
        data: [
          [1, a],
          [0, b],
        ],
      },
      snowflakeHeaders({ operation: 'phone-lookup' }),
    );
    expect((answer.json.data as unknown[][]).map(([row]) => row)).toEqual([1, 0]);
  });

  it('reads a gzip body (COMPRESSION = GZIP) and answers gzip when accepted', async () => {
    const values = phones(30, 5200);
    const response = await fetch(`${instance.url}/snowflake`, {
      method: 'POST',
      headers: {
        ...snowflakeHeaders({ operation: 'phone-lookup' }),
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'accept-encoding': 'gzip',
      },
      body: gzipSync(JSON.stringify({ data: rowsOf(values) })),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const json = (await response.json()) as { data: [number, { status: string }][] };
    expect(json.data.map(([, reply]) => reply.status)).toEqual(values.map(() => 'ok'));
  });

  it('answers a batch id sent again, while being answered and after, without buying again', async () => {
    const values = phones(20, 6000);
    const headers = snowflakeHeaders({ operation: 'phone-lookup', batch: 'query-9:1:1:0:7' });
    const before = sandbox.sandbox.transactions();
    const [one, two] = await Promise.all([
      post(instance.url, '/snowflake', { data: rowsOf(values) }, headers),
      post(instance.url, '/snowflake', { data: rowsOf(values) }, headers),
    ]);
    expect(one.status).toBe(200);
    expect(two.json).toEqual(one.json);
    expect(instance.output()).toMatch(/batch query-9:1:1:0:7 sent again while being answered; joined/);
    const after = await post(instance.url, '/snowflake', { data: rowsOf(values) }, headers);
    expect(after.json).toEqual(one.json);
    expect(sandbox.sandbox.transactions() - before).toBe(20);
  });

  it('keeps to a budget per query set in HEADERS (max-transactions), across batches', async () => {
    const query = '01b0-budget-query';
    const custom = { 'sf-custom-max-transactions': '15' };
    const before = sandbox.sandbox.transactions();
    const first = await post(
      instance.url,
      '/snowflake',
      { data: rowsOf(phones(10, 7000)) },
      snowflakeHeaders({ operation: 'phone-lookup', query, custom }),
    );
    expect(first.status).toBe(200);
    const second = await post(
      instance.url,
      '/snowflake',
      { data: rowsOf(phones(10, 7010)) },
      snowflakeHeaders({ operation: 'phone-lookup', query, custom }),
    );
    expect(second.status).toBe(200);
    const statuses = (second.json.data as [number, { status: string }][]).map(([, r]) => r.status);
    expect(statuses.filter((s) => s === 'ok')).toHaveLength(5);
    expect(statuses.filter((s) => s === 'budget')).toHaveLength(5);
    const third = await post(
      instance.url,
      '/snowflake',
      { data: rowsOf(phones(5, 7020)) },
      snowflakeHeaders({ operation: 'phone-lookup', query, custom }),
    );
    expect(third.status).toBe(400);
    expect(third.json.errorMessage).toMatch(
      /Budget spent: this query's budget \(The header sf-custom-max-transactions 15\)/,
    );
    // What was bought is answered free whatever the budget; another query has its own.
    const again = await post(
      instance.url,
      '/snowflake',
      { data: rowsOf(phones(10, 7000)) },
      snowflakeHeaders({ operation: 'phone-lookup', query, custom }),
    );
    expect(again.status).toBe(200);
    expect(sandbox.sandbox.transactions() - before).toBe(15);
  });
});
