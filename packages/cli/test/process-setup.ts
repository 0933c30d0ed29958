// Shared by the process tests: one sandbox per test file (reset before each test), and the answer
// journal read back as request keys.
import { existsSync, readFileSync } from 'node:fs';
import type { SandboxServer } from '@enrich/sandbox';
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { parseLine } from '../src/answer-store.js';
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
    server.sandbox.configure({ latencyMs: 0, faultRate: 0 });
  });
}

export function journalKeys(path: string): Set<string> {
  if (!existsSync(path)) return new Set();
  const keys = new Set<string>();
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    const line = parseLine(text);
    if (line) keys.add(line.key);
  }
  return keys;
}

export function keyOf(body: string): string {
  return `phone-lookup:${JSON.stringify([['Phone', JSON.parse(body).Phone]])}`;
}
