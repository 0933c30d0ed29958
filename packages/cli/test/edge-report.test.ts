// The rows of the hostile report that no other test runs as scenarios: escapes in a header never
// reach the terminal; the SDK refuses timeoutMs values Node would misread.
import { expect, it } from 'vitest';
import { sdkTimeouts } from './edge-sdk-timeout.scenario.js';
import { terminalEscapes } from './edge-terminal.scenario.js';

it('terminal-escapes: the error names the columns readably, with no control byte printed, nothing sent', async () => {
  const m = await terminalEscapes.run();
  expect(m.more).toEqual({ controlBytesPrinted: 0, columnsNamed: 'readably' });
  expect([m.requests, m.code]).toEqual([0, 2]);
});

it('sdk-timeout-values: Infinity, 2^31, 0, -1 and NaN refused; 2^31-1 and 1000 accepted', async () => {
  const m = await sdkTimeouts.run();
  expect(m.more).toEqual({
    Infinity: 'refused',
    '2^31': 'refused',
    '0': 'refused',
    '-1': 'refused',
    NaN: 'refused',
    '2^31-1': 'accepted',
    '1000': 'accepted',
  });
});
