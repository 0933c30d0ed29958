// The in-process handler: synchronous, with the delay it would add, and a virtual clock.
import { OPERATIONS } from '@enrich/core';
import { expect, it } from 'vitest';
import { createSandbox, DEMO_KEY } from '../src/index.js';

const phoneLookup = OPERATIONS.find((op) => op.id === 'phone-lookup');
const request = (phone: string) => ({
  method: 'POST',
  path: phoneLookup?.path ?? '',
  headers: { 'X-Api-Key': DEMO_KEY, 'Content-Type': 'application/json' },
  body: JSON.stringify({ Phone: phone }),
});

it('answers synchronously and reports the latency it would add', () => {
  const sandbox = createSandbox({ latencyMs: 300 });
  const response = sandbox.handle(request('5550102030'));
  expect(response.status).toBe(200);
  expect(response.delayMs).toBe(300);
  expect(JSON.parse(response.body).Name.FName).toMatch(/^[A-Z]/);
});

it('resets the allowance when its window has passed on the given clock', () => {
  let now = 0;
  const sandbox = createSandbox({ allowance: 1, allowanceWindowMs: 10_000, now: () => now });
  expect(sandbox.handle(request('5550102030')).status).toBe(200);
  const limited = sandbox.handle(request('5550102031'));
  expect(limited.status).toBe(429);
  expect(limited.headers['retry-after']).toBe('10');
  now = 4_000;
  expect(sandbox.handle(request('5550102031')).headers['retry-after']).toBe('6');
  now = 10_000;
  expect(sandbox.handle(request('5550102031')).status).toBe(200);
  expect(sandbox.transactions(DEMO_KEY)).toBe(2);
});

it('a seed changes the synthetic data; the same seed keeps it', () => {
  const a = createSandbox({ seed: 'a' }).handle(request('5550102030')).body;
  expect(createSandbox({ seed: 'a' }).handle(request('5550102030')).body).toBe(a);
  expect(createSandbox({ seed: 'b' }).handle(request('5550102030')).body).not.toBe(a);
});
