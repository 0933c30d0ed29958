// Issue 27, item 6, as the hostile report shows it: the sandbox answers bad HTTP as HTTP, and its
// admin path refuses a request without its credential or JSON, and answers at once.
import { expect, it } from 'vitest';
import { sandboxAdmin, sandboxBadHttp } from './edge-sandbox.scenario.js';

it('sandbox-bad-http: 431 for a 40 KB header, 400 for bad chunks, CL+TE and a garbage line; nothing counted', async () => {
  const m = await sandboxBadHttp.run();
  expect(m.more).toEqual({ header40k: '431', badChunk: '400', clAndTe: '400', garbageLine: '400' });
  expect([m.requests, m.counted]).toEqual([0, 0]);
});

it('sandbox-admin: refused without the token (401) or as text/plain (415); with it, at once and uncounted', async () => {
  const m = await sandboxAdmin.run();
  expect(m.more).toMatchObject({
    noCredential: 401,
    textPlain: 415,
    latencyAfterRefusals: 0,
    withToken: 200,
  });
  expect(m.more.statsMsAt2000msLatency).toBeLessThan(1000);
  expect([m.requests, m.counted]).toEqual([0, 0]);
});
