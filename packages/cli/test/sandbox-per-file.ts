// One sandbox per test file, reset before each test (allowance and faults off), closed after all.
// Shared by the bulk and process tests.
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { sandboxEnv, startServer, stopRecording } from './helpers.js';

// Set by useSandbox's beforeAll; importers see the live binding.
export let server: SandboxServer;
export let env: Record<string, string>;

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
