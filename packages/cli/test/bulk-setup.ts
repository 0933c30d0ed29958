// Shared by the bulk tests: one sandbox per test file (reset before each test), its reserved inputs,
// and a bulk run through runBulk with fast retries.
import { join } from 'node:path';
import { DEFAULT_RETRY_POLICY, getOperation, outputColumns } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { DEMO_KEY, RESERVED, type SandboxServer } from '@enrich/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { runBulk } from '../src/bulk.js';
import { CACHE_FILE } from '../src/main.js';
import { sandboxEnv, startServer, stopRecording } from './helpers.js';

// Set by useSandbox's beforeAll; importers see the live binding.
export let server: SandboxServer;
export let env: Record<string, string>;
export const reserved = (outcome: string) => {
  const r = RESERVED.find((x) => x.outcome === outcome);
  if (!r) throw new Error(outcome);
  return r;
};

/** Starts a sandbox for the calling test file, resets it before each test and closes it after all. */
export function useSandbox(): void {
  beforeAll(async () => {
    server = await startServer();
    env = sandboxEnv(server);
  });
  afterAll(async () => {
    await server.close();
  });
  afterEach(() => {
    stopRecording(server);
  });
  beforeEach(() => {
    server.sandbox.reset();
    server.sandbox.configure({
      latencyMs: 0,
      faultRate: 0,
      allowance: null as unknown as number,
      allowanceWindowMs: null as unknown as number,
    });
  });
}

export const fastRetries = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 10, maxDelayMs: 50 };

export const bulk = (dir: string, overrides: Partial<Parameters<typeof runBulk>[0]> = {}) =>
  runBulk({
    op: getOperation('phone-lookup'),
    inPath: join(dir, 'in.csv'),
    outPath: join(dir, 'out.csv'),
    cachePath: join(dir, CACHE_FILE),
    namespace: 'test',
    maxAgeMs: Number.POSITIVE_INFINITY,
    columns: outputColumns(getOperation('phone-lookup')),
    overrides: {},
    sender: {
      settings: { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url },
      transport: createFetchTransport({ timeoutMs: 5000 }),
      policy: fastRetries,
      concurrency: 4,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      now: Date.now,
    },
    ...overrides,
  });
