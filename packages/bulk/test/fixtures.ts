// Shared by the engine's tests that run against a sandbox: one sandbox per test file over real HTTP
// on 127.0.0.1 (its knobs back to those it started with and its counts reset before each test), a
// fresh folder for each test, CSV files, and the sandbox's reserved inputs.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RESERVED, type SandboxKnobs, type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll, beforeAll, beforeEach, onTestFinished } from 'vitest';

function newDir(): string {
  return mkdtempSync(join(tmpdir(), 'enrich-bulk-test-'));
}

/** A fresh folder for the test under way, removed when the test ends. */
export function tempDir(): string {
  const dir = newDir();
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh folder for each test of the calling file (or describe block), removed after the test. */
export function useTempDir(): { readonly dir: string } {
  const at = { dir: '' };
  beforeEach(() => {
    at.dir = newDir();
    return () => rmSync(at.dir, { recursive: true, force: true });
  });
  return at;
}

/**
 * Starts a sandbox for the calling file (or describe block), with `knobs` at start (its extra-fields
 * misbehaviour, its latency, ...); before each test resets its counts and puts back the knobs a
 * test may change (latency, faults, allowance, Retry-After) as they were at start.
 */
export function useSandboxServer(knobs: Partial<SandboxKnobs> = {}): { readonly server: SandboxServer } {
  const at = { server: undefined as unknown as SandboxServer };
  let defaults: Partial<SandboxKnobs> = {};
  beforeAll(async () => {
    at.server = await startSandboxServer({ ...knobs, host: '127.0.0.1', port: 0 });
    const { latencyMs, faultRate, allowance, allowanceWindowMs, retryAfterSeconds } =
      at.server.sandbox.knobs();
    defaults = { latencyMs, faultRate, allowance, allowanceWindowMs, retryAfterSeconds };
  });
  afterAll(() => at.server.close());
  beforeEach(() => {
    at.server.sandbox.reset();
    at.server.sandbox.configure(defaults);
  });
  return at;
}

/** The sandbox of the calling test file, and the folder of the test under way. */
export interface Sandboxed {
  readonly server: SandboxServer;
  readonly dir: string;
}

/** useSandboxServer(knobs) and useTempDir(): the sandbox of the calling file, a fresh folder for each test. */
export function useSandbox(knobs: Partial<SandboxKnobs> = {}): Sandboxed {
  const sandbox = useSandboxServer(knobs);
  const folder = useTempDir();
  return {
    get server() {
      return sandbox.server;
    },
    get dir() {
      return folder.dir;
    },
  };
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
