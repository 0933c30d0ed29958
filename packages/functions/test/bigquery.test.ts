// BigQuery remote functions, replayed as the documentation gives them
// (https://cloud.google.com/bigquery/docs/remote-functions): "Input format" (requestId, caller,
// sessionUser, userDefinedContext, calls), "Output format" (replies, one per call, in order; or
// errorMessage with another status) and "HTTP response code" (200 is success; 408, 429, 500, 503
// and 504 are retried). Also: "You might see repeated requests with the same data to your endpoint,
// even after successful responses": the same batch sent again spends nothing more.
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bigQueryBody,
  type Instance,
  phones,
  post,
  serviceEnv,
  startInstance,
  startSandbox,
  statuses,
} from './helpers.js';

let sandbox: SandboxServer;
let instance: Instance;

beforeAll(async () => {
  sandbox = await startSandbox();
  instance = await startInstance({ env: serviceEnv(sandbox) });
});

afterAll(async () => {
  await instance?.stop();
  await sandbox?.close();
});

describe('POST /bigquery', () => {
  it("answers the documentation's example request, one reply per call, in order", async () => {
    // The page's own example: calls [null, 1, "", "abc"] and ["abc", "9007199254740993", null, null],
    // here given to Auto Append (Phone, Email, FullName, Address1, Zip: `enrich auto-append --help`).
    const before = sandbox.sandbox.transactions();
    const answer = await post(
      instance.url,
      '/bigquery',
      bigQueryBody({ key1: 'value1', key2: 'v2', operation: 'auto-append' }, [
        [null, 1, '', 'abc'],
        ['abc', '9007199254740993', null, null],
      ]),
    );
    expect(answer.status).toBe(200);
    expect(Object.keys(answer.json)).toEqual(['replies']);
    expect(statuses(answer.json.replies)).toEqual([
      expect.stringMatching(/^invalid: Email must/),
      expect.stringMatching(/^invalid: Phone must be numeric only/),
    ]);
    expect(sandbox.sandbox.transactions()).toBe(before);
  });

  it('takes the arguments in the order enrich <operation> --help lists the fields, and reads records', async () => {
    const [a, b] = phones(2, 100);
    const answer = await post(
      instance.url,
      '/bigquery',
      bigQueryBody({ operation: 'tcpa-verify' }, [
        [a, 'Smith'],
        [b, null],
        [Number(a), 'Smith'],
        [null, null],
        ['5550000204', 'Jones'],
      ]),
    );
    expect(answer.status).toBe(200);
    const replies = answer.json.replies as Record<string, unknown>[];
    expect(replies).toHaveLength(5);
    expect(replies[0]).toEqual({
      status: 'ok',
      verification_code: expect.any(String),
      phone_type: expect.any(String),
    });
    expect(replies[1]?.status).toMatch(/^invalid: .*last_name/);
    // A phone stored as INT64 arrives as a JSON number: the same request as the text, bought once.
    expect(replies[2]).toEqual(replies[0]);
    expect(replies[3]?.status).toMatch(/^invalid: blank row/);
    expect(replies[4]).toEqual({ status: 'no match' });
  });

  it('spends nothing more when the same batch is sent again after its success', async () => {
    const calls = phones(40, 1000).map((phone) => [phone]);
    const before = sandbox.sandbox.transactions();
    const first = await post(instance.url, '/bigquery', bigQueryBody({ operation: 'phone-lookup' }, calls));
    expect(first.status).toBe(200);
    expect(sandbox.sandbox.transactions() - before).toBe(40);
    const again = await post(instance.url, '/bigquery', bigQueryBody({ operation: 'phone-lookup' }, calls));
    expect(again.status).toBe(200);
    expect(again.json.replies).toEqual(first.json.replies);
    expect(sandbox.sandbox.transactions() - before).toBe(40);
  });

  it('buys a request repeated in a batch once, and a retry storm of one batch once', async () => {
    const distinct = phones(25, 2000);
    const calls = [...distinct, ...distinct, ...distinct].map((phone) => [phone]);
    const before = sandbox.sandbox.transactions();
    const storm = await Promise.all(
      Array.from({ length: 12 }, () =>
        post(instance.url, '/bigquery', bigQueryBody({ operation: 'phone-lookup' }, calls)),
      ),
    );
    for (const answer of storm) {
      expect(answer.status).toBe(200);
      expect(answer.json.replies).toEqual(storm[0]?.json.replies);
    }
    expect(statuses(storm[0]?.json.replies).every((s) => s === 'ok')).toBe(true);
    expect(sandbox.sandbox.transactions() - before).toBe(25);
  });

  it('answers 400 with errorMessage for what a retry cannot mend, spending nothing', async () => {
    const before = sandbox.sandbox.transactions();
    const cases: [unknown, RegExp][] = [
      [
        bigQueryBody({ operation: 'phone-lookup' }, [['5550102030', 'extra']]),
        /phone-lookup takes at most 1 argument \(Phone/,
      ],
      [bigQueryBody({ operation: 'phone-lookups' }, [['5550102030']]), /names no operation.*phone-lookup/],
      [bigQueryBody({}, [['5550102030']]), /must name the operation/],
      [
        bigQueryBody({ operation: 'phone-lookup', max_transactions: 'ten' }, [['5550102030']]),
        /max_transactions.*whole number/,
      ],
      [{ calls: 'no' }, /BigQuery remote function request/],
      ['{"calls": [["5550102030"]', /not JSON/],
    ];
    for (const [body, message] of cases) {
      const answer = await post(instance.url, '/bigquery', body);
      expect(answer.status, String(message)).toBe(400);
      expect(answer.json.errorMessage).toMatch(message);
      expect(Buffer.byteLength(String(answer.json.errorMessage))).toBeLessThan(1024);
    }
    expect(sandbox.sandbox.transactions()).toBe(before);
  });

  it('answers 503 while the service fails, and the retry is free for what was bought', async () => {
    const good = phones(10, 3000);
    const calls = [...good.map((p) => [p]), ['5550000500']];
    const before = sandbox.sandbox.transactions();
    const failing = await post(instance.url, '/bigquery', bigQueryBody({ operation: 'phone-lookup' }, calls));
    expect(failing.status).toBe(503);
    expect(failing.json.errorMessage).toMatch(/1 of 11 requests could not be answered now.*kept/);
    expect(sandbox.sandbox.transactions() - before).toBe(10);
    const retried = await post(
      instance.url,
      '/bigquery',
      bigQueryBody({ operation: 'phone-lookup' }, calls.slice(0, 10)),
    );
    expect(retried.status).toBe(200);
    expect(sandbox.sandbox.transactions() - before).toBe(10);
  });
});
