// Issue 27, item 3, through the CLI over real HTTP: e-mail cells that can only waste money are
// refused locally, each with the rule named, and nothing is sent for them.
import { expect, it } from 'vitest';
import { UNDELIVERABLE_EMAILS, undeliverableEmails } from './edge-email.scenario.js';

it('undeliverable e-mail cells are refused locally: nothing sent, each row says which rule', async () => {
  const m = await undeliverableEmails.run();
  expect([m.requests, m.counted, m.journal]).toEqual([0, 0, 0]);
  expect(m.statuses).toEqual({ invalid: UNDELIVERABLE_EMAILS.length });
  for (const row of m.rows) expect(row.status).toMatch(/^invalid: Email /);
  expect(m.code).toBe(0); // invalid rows are the file's, not a failure of the run
});
