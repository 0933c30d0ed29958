// Shared by the tests: a sandbox over real HTTP on 127.0.0.1, temp dirs, CSV files, and the CLI run
// either in this process (fast) or as a real child process (for signals, kills and exit codes).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { PAID_STATUSES } from '@enrich/core';
import { DEMO_KEY, type SandboxServer, type ServerOptions, startSandboxServer } from '@enrich/sandbox';
import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { afterAll } from 'vitest';
import { type Io, main } from '../src/main.js';

export const CLI_DIR = join(import.meta.dirname, '..');
export const BIN = join(CLI_DIR, 'bin', 'enrich.mjs');

// Every test file evaluates this module afresh, so this hook is the calling file's: the folders its
// tests made are removed when the file is done (a run used to leave a hundred behind). Outside vitest (the hostile
// report runs the scenarios as a script) there is no file to end: they go when the process exits.
const made: string[] = [];
const removeMade = () => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
};
if (process.env.VITEST) afterAll(removeMade);
else process.on('exit', removeMade);

/** A fresh folder, removed when the calling test file is done. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'enrich-cli-test-'));
  made.push(dir);
  return dir;
}

/**
 * The spend ledger of every command a test runs (runCli, spawnCli), unless the test names its own
 * ENRICH_LEDGER: never the user's, in their home folder.
 */
export const TEST_LEDGER = join(tempDir(), 'ledger.jsonl');

/**
 * The data folder of every command a test runs (the suppression list, the registry of caches, the
 * record of forget requests, the retention): never the user's.
 */
export const TEST_DATA_DIR = tempDir();

/**
 * What every command a test runs (runCli, spawnCli) finds in its environment unless the test says
 * otherwise: the test file's spend ledger, and a cache folder of its own, so that no command starts
 * from the pace another one left (or the user's: ENRICH_CACHE_DIR holds pace.json).
 */
export function isolatedEnv(): Record<string, string> {
  return { ENRICH_LEDGER: TEST_LEDGER, ENRICH_CACHE_DIR: tempDir(), ENRICH_DATA_DIR: TEST_DATA_DIR };
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

export function sandboxEnv(server: SandboxServer, key = DEMO_KEY): Record<string, string> {
  return { ENRICH_API_KEY: key, ENRICH_BASE_URL: server.url, ENRICH_BASE_URL_V3: server.url };
}

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the command in this process, as the real binary would but with captured output. */
export async function runCli(
  argv: readonly string[],
  options: { env: Record<string, string>; cwd: string; signal?: AbortSignal; stdin?: string | Buffer },
): Promise<Ran> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (d) => {
    out += String(d);
  });
  stderr.on('data', (d) => {
    err += String(d);
  });
  const stdin = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;
  // A pipe's content, ended: what `cat file | enrich ... --in -` gives.
  if (options.stdin !== undefined) (stdin as unknown as PassThrough).end(options.stdin);
  const env = { ...isolatedEnv(), ...options.env };
  const io: Io = { stdout, stderr, stdin, env, cwd: options.cwd, signal: options.signal };
  const code = await main(argv, io);
  return { code, stdout: out, stderr: err };
}

export interface Child {
  readonly process: ChildProcess;
  readonly done: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>;
}

/** Runs the real `enrich` binary as a child process. */
export function spawnCli(
  argv: readonly string[],
  options: { env: Record<string, string>; cwd: string },
): Child {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH ?? '', ...isolatedEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  const done = new Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
  return { process: child, done };
}

export interface Billed {
  /** Request bodies the sandbox billed, in order. */
  readonly bodies: string[];
  /** Called with the count after each billed request. */
  onBilled: ((count: number, body: string) => void) | undefined;
  /**
   * Called as each request arrives, before the sandbox sees it; returning true drops the request
   * unbilled (answered 503), as if it had been lost on the way.
   */
  onArrival: ((count: number, body: string) => boolean) | undefined;
  /** Every request body that reached the handler. */
  readonly seen: string[];
}

const originalHandles = new WeakMap<object, SandboxServer['sandbox']['handle']>();

/** Records what the sandbox bills, request by request, by wrapping its handler (until unwrapped). */
export function recordBilling(server: SandboxServer): Billed {
  const billed: Billed = { bodies: [], onBilled: undefined, onArrival: undefined, seen: [] };
  const sandbox = server.sandbox;
  if (!originalHandles.has(sandbox)) originalHandles.set(sandbox, sandbox.handle);
  const handle = sandbox.handle.bind(sandbox);
  sandbox.handle = (request) => {
    const admin = request.path.startsWith('/__sandbox/');
    if (!admin && billed.onArrival?.(billed.seen.length + 1, request.body)) {
      return { status: 503, headers: {}, body: '', delayMs: 0 };
    }
    const response = handle(request);
    if (!admin) {
      billed.seen.push(request.body);
      if (PAID_STATUSES.includes(response.status)) {
        billed.bodies.push(request.body);
        billed.onBilled?.(billed.bodies.length, request.body);
      }
    }
    return response;
  };
  return billed;
}

/** Takes every recordBilling wrapper off the sandbox's handler. */
export function stopRecording(server: SandboxServer): void {
  const original = originalHandles.get(server.sandbox);
  if (original) server.sandbox.handle = original;
}

export async function startServer(options: ServerOptions = {}): Promise<SandboxServer> {
  return startSandboxServer({ host: '127.0.0.1', port: 0, ...options });
}

/** Phones that the sandbox answers with a record (outside its reserved 555000xxxx). */
export function phone(i: number): string {
  return `555${String(1_000_000 + i).padStart(7, '0')}`;
}
