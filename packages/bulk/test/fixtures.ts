// Shared by the engine's tests that run against a sandbox: one sandbox per test file over real HTTP
// on 127.0.0.1 (its knobs back to their defaults and its counts reset before each test), a fresh
// folder for each test, CSV files, and the sandbox's reserved inputs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESERVED, type SandboxKnobs, type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, beforeEach } from 'vitest';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'enrich-bulk-test-'));
}

/** The sandbox of the calling test file, and the folder of the test under way. */
export interface Sandboxed {
  readonly server: SandboxServer;
  readonly dir: string;
}

/** Starts a sandbox for the calling test file, resets it and makes a fresh folder before each test. */
export function useSandbox(): Sandboxed {
  const at = { server: undefined as unknown as SandboxServer, dir: '' };
  let defaults: Partial<SandboxKnobs> = {};
  beforeAll(async () => {
    at.server = await startSandboxServer({ host: '127.0.0.1', port: 0 });
    const { latencyMs, faultRate, allowance, allowanceWindowMs, retryAfterSeconds } =
      at.server.sandbox.knobs();
    defaults = { latencyMs, faultRate, allowance, allowanceWindowMs, retryAfterSeconds };
  });
  afterAll(() => at.server.close());
  beforeEach(() => {
    at.server.sandbox.reset();
    at.server.sandbox.configure(defaults);
    at.dir = tempDir();
    return () => rmSync(at.dir, { recursive: true, force: true });
  });
  return at;
}

export function writeCsv(path: string, rows: readonly (readonly string[])[]): string {
  writeFileSync(path, stringify(rows as string[][]));
  return path;
}

export function readCsv(path: string): string[][] {
  return parse(readFileSync(path), { bom: true, relax_column_count: true }) as string[][];
}

/** Rows as objects by header, for readable assertions. */
export function readRecords(path: string): Record<string, string>[] {
  return parse(readFileSync(path), { bom: true, columns: true }) as Record<string, string>[];
}

/** The sandbox's reserved input for an outcome (a 500, a record holding formulas, ...). */
export function reserved(outcome: string): (typeof RESERVED)[number] {
  const r = RESERVED.find((x) => x.outcome === outcome);
  if (!r) throw new Error(outcome);
  return r;
}
