// The processes the benchmark runs: the sandbox, the enrich command, and plain scripts (the
// references), each timed from spawn to exit, with its own CPU time and peak memory.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_HEADER, DEMO_KEY } from '@enrich/sandbox';

const CLI_DIR = join(import.meta.dirname, '..');
// The built bundle (what an installed command runs), not the tsx launcher: see scripts/build.mjs.
// BENCH_ENRICH_BIN runs another build against the same sandbox and the same services (another
// commit's dist/enrich.mjs, for figures before a change); its path is printed with the results.
export const BIN = process.env.BENCH_ENRICH_BIN || join(CLI_DIR, 'dist', 'enrich.mjs');
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

export interface SandboxStats {
  transactions: number;
  requests: number;
  throttled: number;
  /** 503 answers of an overloaded service. */
  overloaded: number;
  answersPerSecond: number;
  peakInService: number;
  byStatus: Record<string, number>;
}

export interface Sandbox {
  url: string;
  process: ChildProcess;
  stats(): Promise<SandboxStats>;
  reset(): Promise<void>;
  /** Changes the service model mid-run (POST /__sandbox/configure). */
  configure(knobs: Record<string, unknown>): Promise<void>;
}

/** The sandbox in a process of its own: a latency in ms, or its options (a service model). */
export async function startSandbox(model: number | Record<string, unknown>): Promise<Sandbox> {
  const arg = typeof model === 'number' ? String(model) : JSON.stringify(model);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(CLI_DIR, 'bench', 'sandbox-process.ts'), arg],
    {
      cwd: CLI_DIR,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const [line] = (await once(child.stdout as NodeJS.ReadableStream, 'data')) as [Buffer];
  const { url, adminToken } = JSON.parse(String(line).split('\n')[0] ?? '{}') as {
    url: string;
    adminToken: string;
  };
  // The admin paths take the admin token, and a JSON body for those that change something.
  const admin = async (action: string, body?: unknown): Promise<Response> => {
    const answer = await fetch(`${url}/__sandbox/${action}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { [ADMIN_HEADER]: adminToken, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!answer.ok) throw new Error(`${action} ${JSON.stringify(body ?? '')}: ${answer.status}`);
    return answer;
  };
  return {
    url,
    process: child,
    stats: async () => (await (await admin('stats')).json()) as SandboxStats,
    reset: async () => {
      await (await admin('reset', {})).body?.cancel();
    },
    configure: async (knobs) => {
      await (await admin('configure', knobs)).body?.cancel();
    },
  };
}

export interface Run {
  wallMs: number;
  summary: Record<string, number | string | boolean> & {
    elapsedMs: number;
    transactions: number;
    maxRssBytes: number;
  };
  timeRssKb: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** The enrich command against the sandbox, with --json --quiet (its summary is the last line). */
export function enrich(
  sandbox: Sandbox,
  dir: string,
  args: string[],
  options: RunOptions = {},
): Promise<Run> {
  const env = {
    PATH: process.env.PATH ?? '',
    ENRICH_API_KEY: DEMO_KEY,
    ENRICH_BASE_URL: sandbox.url,
    ENRICH_BASE_URL_V3: sandbox.url,
    // The runs' spend goes to a ledger of the bench's own, not the user's; their pace.json and data
    // folder to a home of the bench's own, so that no figure depends on a pace an earlier run left
    // in the user's ~/.cache/enrich (a run may give a home of its own: options.env).
    HOME: dir,
    ENRICH_LEDGER: join(dir, 'ledger.jsonl'),
    ...options.env,
  };
  return run([process.execPath, BIN, 'phone-lookup', ...args, '--json', '--quiet'], dir, env, options);
}

/** A plain script (a reference) with node; it prints {cpuMs, maxRssBytes} as its last line. */
export function script(path: string, args: string[], dir: string): Promise<Run> {
  return run([process.execPath, path, ...args], dir, { PATH: process.env.PATH ?? '' }, {});
}

interface RunOptions {
  /** More environment for enrich (a home of its own, say). */
  env?: Record<string, string>;
  /** SIGKILL enrich after this long (a crash). */
  killAfterMs?: number;
  /** SIGINT enrich after this long (Ctrl-C: it stops sending and prints its summary). */
  interruptAfterMs?: number;
}

function run(command: string[], dir: string, env: Record<string, string>, options: RunOptions): Promise<Run> {
  const [file, ...argv] = TIME ? [TIME, '-v', ...command] : command;
  const started = performance.now();
  const child = spawn(file as string, argv, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    stderr += String(d);
  });
  if (options.killAfterMs !== undefined) {
    // Kill node itself (under /usr/bin/time the child is time, whose child is node).
    setTimeout(() => {
      const pid = TIME ? findChildPid(child.pid) : child.pid;
      if (pid) process.kill(pid, 'SIGKILL');
    }, options.killAfterMs);
  }
  const interrupt =
    options.interruptAfterMs === undefined
      ? undefined
      : setTimeout(() => {
          const pid = TIME ? findChildPid(child.pid) : child.pid;
          if (pid) process.kill(pid, 'SIGINT');
        }, options.interruptAfterMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(interrupt);
      const wallMs = performance.now() - started;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const summaryLine = stdout.trim().split('\n').pop() ?? '';
      let summary = {} as Run['summary'];
      try {
        summary = JSON.parse(summaryLine);
      } catch {
        if (options.killAfterMs === undefined) process.stderr.write(`${stdout}\n${stderr}\n`);
      }
      // Under /usr/bin/time, the killed process is time's child: time reports its signal.
      const timeSignal = /Command terminated by signal (\d+)/.exec(stderr);
      const killedBy = signal ?? (timeSignal?.[1] === '9' ? 'SIGKILL' : null);
      resolve({ wallMs, summary, timeRssKb: rss ? Number(rss[1]) : undefined, code, signal: killedBy });
    });
  });
}

function findChildPid(parent: number | undefined): number | undefined {
  if (!parent) return undefined;
  try {
    const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/);
    return children[0] ? Number(children[0]) : undefined;
  } catch {
    return undefined;
  }
}
