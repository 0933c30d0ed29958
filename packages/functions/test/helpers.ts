// Drives the built server (dist/enrich-functions.mjs, which turbo builds before the tests) as a
// child process, as a deployment runs it, against the sandbox over real HTTP on 127.0.0.1; keeps
// everything every instance printed, for the log scan. The engines' requests are replayed as their
// documentation gives them (bigquery.test.ts and snowflake.test.ts cite the pages).
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import { afterAll } from 'vitest';

export const BIN = join(import.meta.dirname, '..', 'dist', 'enrich-functions.mjs');

/** The callers' token of every test instance: it must never show in a log. */
export const TOKEN = 'tok-7f3a9c1e5b2d8f4a6c0e9b1d';
/** A sandbox key that is not the demo key, so that the log scan can look for it. */
export const KEY = 'functions-test-key-3b8e1f0c9a7d';

const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, removed when the calling test file is done. */
export function tempDir(prefix = 'enrich-functions-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Everything every instance of this test file printed (stdout and stderr). */
export const printed: string[] = [];

export interface Instance {
  readonly url: string;
  readonly child: ChildProcess;
  /** What this instance printed so far. */
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  readonly exited: Promise<number | string | null>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | string | null>;
}

export interface StartOptions {
  readonly args?: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** The environment of an instance: nothing of the test runner's but PATH, a home and its own ledger. */
export function baseEnv(): Record<string, string> {
  const home = tempDir('enrich-functions-home-');
  return {
    PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
    HOME: home,
    // A free port, unless a test says otherwise (several instances run at once).
    PORT: '0',
    ENRICH_CACHE_DIR: join(home, 'cache'),
    ENRICH_LEDGER: join(home, 'ledger.jsonl'),
  };
}

/** Runs the built server; resolves once it says `listening on http://...`, rejects if it exits first. */
export function spawnInstance(options: StartOptions = {}): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, [BIN, ...(options.args ?? [])], {
    env: { ...baseEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const keep = (chunk: Buffer) => {
    text += String(chunk);
    printed.push(String(chunk));
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  return { child, output: () => text };
}

export async function startInstance(options: StartOptions = {}): Promise<Instance> {
  const { child, output } = spawnInstance(options);
  const exited = new Promise<number | string | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output());
      if (match?.[1]) {
        clearInterval(timer);
        resolve(match[1].replace('0.0.0.0', '127.0.0.1'));
      }
    }, 20);
    void exited.then((code) => {
      clearInterval(timer);
      reject(new Error(`enrich-functions exited (${code}) before listening:\n${output()}`));
    });
  });
  return {
    url,
    child,
    output,
    exited,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** The sandbox on 127.0.0.1 with the test key. */
export function startSandbox(options: Parameters<typeof startSandboxServer>[0] = {}): Promise<SandboxServer> {
  return startSandboxServer({ host: '127.0.0.1', port: 0, keys: [KEY], ...options });
}

/** An instance's environment pointed at the sandbox with the test key and token. */
export function serviceEnv(
  sandbox: SandboxServer,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    ENRICH_API_KEY: KEY,
    ENRICH_BASE_URL: sandbox.url,
    ENRICH_BASE_URL_V3: sandbox.url,
    ENRICH_FUNCTIONS_TOKEN: TOKEN,
    ...extra,
  };
}

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly json: Record<string, unknown>;
}

/** POSTs JSON (or text, as given) with the token as a bearer unless headers say otherwise. */
export async function post(
  url: string,
  path: string,
  body: unknown,
  headers: Readonly<Record<string, string>> = { authorization: `Bearer ${TOKEN}` },
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : {} };
}

/**
 * A BigQuery remote function request as the documentation shows it
 * (https://cloud.google.com/bigquery/docs/remote-functions, "Input format"): requestId, caller (the
 * job's full resource name), sessionUser, userDefinedContext (the function's user_defined_context,
 * values as strings) and calls, one array of arguments per row.
 */
export function bigQueryBody(
  context: Readonly<Record<string, string>>,
  calls: readonly (readonly unknown[])[],
  job = 'bquxjob_5b4c112c_17961fafeaf',
): Record<string, unknown> {
  return {
    requestId: `124ab1c-${Math.random().toString(16).slice(2, 8)}`,
    caller: `//bigquery.googleapis.com/projects/myproject/jobs/myproject:US.${job}`,
    sessionUser: 'test-user@test-company.com',
    userDefinedContext: context,
    calls,
  };
}

/** Replies of a BigQuery answer, by their status. */
export function statuses(replies: unknown): string[] {
  return (replies as { status: string }[]).map((reply) => reply.status);
}

/** `count` distinct valid phones from `from` on (the sandbox answers each with a record). */
export function phones(count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => `555${String(2_000_000 + from + i).padStart(7, '0')}`);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
