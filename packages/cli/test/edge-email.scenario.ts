// Issue 27, item 3, as a hostile scenario: e-mail cells that no service can deliver to, which were
// sent and paid for (7 of 12 on the issue's list). Core's e-mail rule now refuses them locally; the
// run spends nothing on them. edge-email.test.ts asserts it; the hostile report prints it.
import { join } from 'node:path';
import { runCli, sandboxEnv, tempDir, writeCsv } from './helpers.js';
import { measure, type Scenario, sandboxCounts, withSandbox } from './hostile-measure.js';

/** The issue's forms and their kin: each can only waste a transaction. */
export const UNDELIVERABLE_EMAILS = [
  'mailto:j@x.com',
  '<j@x.com>',
  'j@x.com;',
  'j@x..com',
  'n/a@n/a.n/a',
  '"Jo" <j@x.com>',
  'j@x.com, k@y.com',
  'j@@x.com',
  '.j@x.com',
  'j@localhost',
  'j@x.123',
  'j@-x.com',
] as const;

export const undeliverableEmails: Scenario = {
  id: 'undeliverable-emails',
  issue: 'e-mail cells mailto:j@x.com, <j@x.com>, j@x.com;, j@x..com, n/a@n/a.n/a and kin (12)',
  run: () =>
    withSandbox(async (server) => {
      const dir = tempDir();
      writeCsv(join(dir, 'in.csv'), [['Email'], ...UNDELIVERABLE_EMAILS.map((e) => [e])]);
      const startedAt = Date.now();
      const ran = await runCli(['email-verify', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
        env: sandboxEnv(server),
        cwd: dir,
      });
      return measure(dir, sandboxCounts(server), ran, startedAt, {}, 'email-verify');
    }),
};
