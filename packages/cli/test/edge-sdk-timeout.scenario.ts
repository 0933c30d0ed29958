// Issue 27, item 2, as a row of the hostile report: the SDK's timeoutMs edge values. Node clamped
// Infinity and 2^31 ms to 1 ms (every call aborted and retried) and took 0, -1 and NaN for no
// deadline at all; createClient now refuses each, naming the option. No request is made: the
// "also" column says what each value gave. core's client-timeout.test.ts asserts it.
import { createClient } from '@enrich/core';
import { notARun, type Scenario } from './hostile-measure.js';

const VALUES: readonly [string, number][] = [
  ['Infinity', Number.POSITIVE_INFINITY],
  ['2^31', 2 ** 31],
  ['0', 0],
  ['-1', -1],
  ['NaN', Number.NaN],
  ['2^31-1', 2 ** 31 - 1],
  ['1000', 1000],
];

export const sdkTimeouts: Scenario = {
  id: 'sdk-timeout-values',
  issue: 'SDK timeoutMs: Infinity, 2^31, 0, -1, NaN (and 2^31-1, 1000)',
  async run() {
    const startedAt = Date.now();
    const more: Record<string, string> = {};
    for (const [name, timeoutMs] of VALUES) {
      try {
        createClient({
          apiKey: 'test-key',
          baseUrl: 'http://127.0.0.1:9',
          baseUrlV3: 'http://127.0.0.1:9',
          timeoutMs,
        });
        more[name] = 'accepted';
      } catch (error) {
        more[name] = error instanceof TypeError && /timeoutMs/.test(error.message) ? 'refused' : 'other';
      }
    }
    return notARun({ requests: 0, counted: 0 }, startedAt, more);
  },
};
