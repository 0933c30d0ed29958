// No row data and no key in any log line: batches of every kind (answered, invalid rows, a failing
// service, refusals, a body that is not JSON, a wrong token) go through an instance, then everything
// it printed is searched for every input value, every answer value, BigQuery's sessionUser, the API
// key and the callers' token.
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bigQueryBody,
  type Instance,
  KEY,
  post,
  serviceEnv,
  startInstance,
  startSandbox,
  TOKEN,
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

const PHONE = '5553217654';
const EMAIL = 'quintessa.zorblax@example.com';
const LAST_NAME = 'Zorblaxian';
const BAD_PHONE = '55532X7654';
const SESSION_USER = 'ada.lovelace@company.example';

describe('the log', () => {
  it('holds no input, no answer, no sessionUser, no key and no token', async () => {
    const bigquery = {
      ...bigQueryBody({ operation: 'tcpa-verify' }, [
        [PHONE, LAST_NAME],
        [BAD_PHONE, LAST_NAME],
        [null, LAST_NAME],
      ]),
      sessionUser: SESSION_USER,
    };
    const answered = await post(instance.url, '/bigquery', bigquery);
    expect(answered.status).toBe(200);
    const record = (answered.json.replies as Record<string, string>[])[0] ?? {};
    const snowflake = await post(
      instance.url,
      '/snowflake/email-verify',
      {
        data: [
          [0, EMAIL],
          [1, `${EMAIL}>`],
        ],
      },
      { 'sf-custom-token': TOKEN, 'sf-external-function-query-batch-id': 'b-1' },
    );
    expect(snowflake.status).toBe(200);
    const failing = await post(instance.url, '/rows', {
      operation: 'tcpa-verify',
      rows: [{ phone: '5550000500', last_name: LAST_NAME }],
    });
    expect(failing.status).toBe(503);
    const refusals = [
      await post(instance.url, '/rows', `{"operation": "phone-lookup", "rows": [{"Phone": "${PHONE}"`),
      await post(instance.url, '/bigquery', bigQueryBody({ operation: 'phone-lookup' }, [[PHONE, EMAIL]])),
      await post(instance.url, '/rows', { operation: 'phone-lookup', rows: [PHONE] }),
      await post(instance.url, '/bigquery', bigquery, { authorization: `Bearer ${TOKEN.slice(0, -1)}Z` }),
    ];
    expect(refusals.map((r) => r.status)).toEqual([400, 400, 400, 401]);
    await instance.stop();
    const log = instance.output();
    // The log says what happened...
    expect(log).toMatch(/bigquery tcpa-verify: 3 rows, 1 distinct; 0 from the store, 1 bought, 2 invalid/);
    expect(log).toMatch(/rows tcpa-verify: .* 503 in \d+ ms/);
    expect(log).toMatch(/400 rows: the body is not JSON/);
    expect(log).toMatch(/401 bigquery/);
    // ...and nothing of the rows, the people or the secrets.
    const secrets = [
      PHONE,
      '321-7654',
      EMAIL,
      'quintessa',
      LAST_NAME,
      BAD_PHONE,
      SESSION_USER,
      KEY,
      TOKEN,
      TOKEN.slice(0, -1),
    ];
    for (const value of Object.values(record))
      if (typeof value === 'string' && value.length >= 3) secrets.push(value);
    for (const secret of secrets) expect(log.toLowerCase(), secret).not.toContain(secret.toLowerCase());
  });

  it('on Cloud Run (K_SERVICE set), is one JSON object a line with a severity, as Cloud Logging reads it', async () => {
    const cloudRun = await startInstance({ env: serviceEnv(sandbox, { K_SERVICE: 'enrich-functions' }) });
    await post(cloudRun.url, '/rows', { operation: 'phone-lookup', rows: [{ Phone: PHONE }] });
    await post(cloudRun.url, '/rows', 'not json');
    await cloudRun.stop();
    const lines = cloudRun
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines[0]).toEqual({
      severity: 'INFO',
      message: expect.stringMatching(/^listening on http:/),
      component: 'enrich-functions',
    });
    expect(lines).toContainEqual(
      expect.objectContaining({ severity: 'WARNING', message: '400 rows: the body is not JSON' }),
    );
    expect(cloudRun.output()).not.toContain(PHONE);
  });
});
