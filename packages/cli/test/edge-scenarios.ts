// Issue 27's scenarios ("money and files safe at the edges"), one list for the hostile report. Each
// lives beside the test that asserts it: edge-files (a broken row mid-file, an --out of the user's),
// edge-email (inputs that can only waste money), edge-neutral (field names like formulas), edge-slow
// (a service slower than --timeout: sent whole, never bought again), edge-sdk-timeout (timeoutMs
// edge values), edge-terminal (escapes in a header), edge-sandbox (the sandbox's bad HTTP and admin
// path).

import { undeliverableEmails } from './edge-email.scenario.js';
import { EDGE_FILE_SCENARIOS } from './edge-files.scenario.js';
import { EDGE_NEUTRAL_SCENARIOS } from './edge-neutral.scenario.js';
import { sandboxAdmin, sandboxBadHttp } from './edge-sandbox.scenario.js';
import { sdkTimeouts } from './edge-sdk-timeout.scenario.js';
import { slowerThanTimeout } from './edge-slow.scenario.js';
import { terminalEscapes } from './edge-terminal.scenario.js';
import type { Scenario } from './hostile-measure.js';

export const EDGE_SCENARIOS: readonly Scenario[] = [
  ...EDGE_FILE_SCENARIOS,
  undeliverableEmails,
  ...EDGE_NEUTRAL_SCENARIOS,
  terminalEscapes,
  slowerThanTimeout,
  sdkTimeouts,
  sandboxBadHttp,
  sandboxAdmin,
];
