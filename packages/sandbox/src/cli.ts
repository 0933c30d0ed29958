#!/usr/bin/env -S npx tsx
// `pnpm sandbox`: serves the sandbox until Ctrl-C. Every option also reads an environment variable.
import { readCommand } from './command-flags.js';
import { MAX_LATENCY_MS, MAX_LATENCY_SIGMA } from './knob-rules.js';
import { MISBEHAVE_DESCRIPTIONS, MISBEHAVE_HEADER, MISBEHAVE_MODES } from './misbehave.js';
import { ADMIN_HEADER, DEMO_KEY } from './sandbox.js';
import { startSandboxServer } from './server.js';

const HELP = `enrich-sandbox: a local reference server of the enrichment API

Options (environment variable in brackets):
  --port N              port to listen on, 0 for any free one (SANDBOX_PORT; default 8787)
  --host H              address to listen on (SANDBOX_HOST; default 127.0.0.1)
  --https               serve HTTPS with a generated self-signed certificate (SANDBOX_HTTPS=1)
  --keys K1,K2          accepted API keys (SANDBOX_KEYS; default ${DEMO_KEY})
  --allowance N         paid transactions per key per window before 429 (SANDBOX_ALLOWANCE; default none)
  --allowance-window S  seconds until a key's allowance resets (SANDBOX_ALLOWANCE_WINDOW; default never)
  --latency MS          added to every answer; with --latency-p99, the median service time, at most
                        ${MAX_LATENCY_MS} (an hour) (SANDBOX_LATENCY_MS; default 0)
  --latency-p99 MS      99th percentile of the service time: log-normal between the two, seeded,
                        at most ${MAX_LATENCY_MS} (SANDBOX_LATENCY_P99_MS; default: equal to --latency,
                        a fixed latency)
  --latency-sigma S     the same spread as σ, the standard deviation of the log of the service time,
                        0 to ${MAX_LATENCY_SIGMA}: sets the p99 (SANDBOX_LATENCY_SIGMA; default 0, fixed)
  --rate N              requests per second per key through a token bucket, else 429 with
                        Retry-After: 1 (SANDBOX_RATE; default none)
  --burst N             the most a key's bucket holds (SANDBOX_BURST; default: the rate, at least 1)
  --no-rate-retry-after the bucket's 429 without Retry-After (SANDBOX_RATE_RETRY_AFTER=0)
  --window-limit N      requests per key per fixed window, else 429 with Retry-After to the
                        window's end (SANDBOX_WINDOW_LIMIT; default none)
  --window-ms MS        the fixed window's length (SANDBOX_WINDOW_MS; default 60000)
  --rate-headers        answers counted by the window say what is left: X-RateLimit-Limit,
                        -Remaining, -Reset, RateLimit, RateLimit-Policy (SANDBOX_RATE_HEADERS=1)
  --capacity N          requests in service at once; more wait in a FIFO queue (SANDBOX_CAPACITY;
                        default none)
  --overload MODE       past the capacity: queue, or 503 to answer 503 at once (SANDBOX_OVERLOAD;
                        default queue)
  --fault-rate R        share of requests answered 500, 0 to 1 (SANDBOX_FAULT_RATE; default 0)
  --seed S              changes every synthetic record (SANDBOX_SEED; default "sandbox")
  --misbehave M1,M2     misbehave on every request (SANDBOX_MISBEHAVE; default none); one request
                        can ask with the header ${MISBEHAVE_HEADER}: M1,M2. Modes:
${MISBEHAVE_MODES.map((m) => `                          ${m.padEnd(17)} ${MISBEHAVE_DESCRIPTIONS[m]}`).join('\n')}
`;

// A bad flag or variable is a line and exit code 2, before anything starts (command-flags.ts).
const command = readCommand(process.argv.slice(2), process.env);
if (!command.ok) {
  process.stderr.write(`enrich-sandbox: ${command.message}\n`);
  process.exit(2);
}
if (command.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
const { options } = command;
const misbehave = options.misbehave ?? [];

// What the flags cannot rule out (a port in use, an address this machine does not have) is a line
// too, with the system's reason, and exit code 1.
const LISTEN_ERRORS: Readonly<Record<string, string>> = {
  EADDRINUSE: 'the port is in use',
  EADDRNOTAVAIL: 'this machine has no such address',
  EACCES: 'not allowed (a port below 1024 needs privileges)',
};
const server = await startSandboxServer(options).catch((error: NodeJS.ErrnoException) => {
  const why = error.code ? `${LISTEN_ERRORS[error.code] ?? error.message} (${error.code})` : error.message;
  process.stderr.write(`enrich-sandbox: cannot listen on ${options.host}:${options.port}: ${why}\n`);
  process.exit(1);
});

/** The service model in force, when any knob of it is set: a line for the banner. */
function loadLine(): string {
  const knobs = server.sandbox.knobs();
  const parts: string[] = [];
  if (Number.isFinite(knobs.rate)) {
    const silent = knobs.rateRetryAfter ? '' : ', 429 without Retry-After';
    parts.push(`${knobs.rate} requests/s per key (burst ${knobs.burst}${silent})`);
  }
  if (Number.isFinite(knobs.windowLimit)) {
    const told = knobs.rateHeaders ? ', with rate headers' : '';
    parts.push(`${knobs.windowLimit} requests per ${knobs.windowMs} ms window per key${told}`);
  }
  if (Number.isFinite(knobs.capacity)) {
    const past = knobs.overload === '503' ? ', 503 past it' : '';
    parts.push(`${knobs.capacity} in service at once${past}`);
  }
  if (knobs.latencyP99Ms > knobs.latencyMs) {
    const p99 = Math.round(knobs.latencyP99Ms * 10) / 10;
    const sigma = Math.round(knobs.latencySigma * 1000) / 1000;
    parts.push(`latency median ${knobs.latencyMs} ms, p99 ${p99} ms (σ ${sigma})`);
  }
  return parts.length > 0 ? `\n  Service model: ${parts.join('; ')}` : '';
}

process.stdout.write(`Enrichment sandbox listening on ${server.url}
  Use it as both base URLs (v2 and v3).
  Demo API key: ${DEMO_KEY}   (a sandbox key, not a secret)
  Admin token: ${server.adminToken}   (header ${ADMIN_HEADER}, or x-api-key with a key, for /__sandbox/*)
  Stats: GET ${server.url}/__sandbox/stats${loadLine()}${misbehave.length > 0 ? `\n  Misbehaving on every request: ${misbehave.join(', ')}` : ''}
Ctrl-C to stop.
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
