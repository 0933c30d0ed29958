// Issue 27, item 2: a service slower than --timeout. It bills each request as it arrives and answers
// 2 s later; the run gives up after 0.5 s. The request had been sent whole, so the service may have
// billed it: the run must not send it again (on main it did, five times a row), and the row must
// say so. test/slow-service.test.ts asserts it; scripts/hostile-report.ts prints it.
import { hostileScenario, type Scenario } from './hostile-measure.js';
import { phoneRecord } from './hostile-servers.js';

/** How long the slow service takes to answer, and the --timeout the run is given (seconds). */
export const SLOW_ANSWER_MS = 2000;
export const SHORT_TIMEOUT = '0.5';

export const slowerThanTimeout: Scenario = hostileScenario(
  'slower-than-timeout',
  'a service that answers after --timeout',
  (req, res, bill) => {
    // Billed on arrival, as a service that runs the request and answers late would.
    bill();
    setTimeout(() => {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(phoneRecord(JSON.parse(req.body).Phone)));
    }, SLOW_ANSWER_MS).unref();
  },
  ['--timeout', SHORT_TIMEOUT],
);
