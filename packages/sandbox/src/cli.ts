#!/usr/bin/env -S npx tsx
// `pnpm sandbox`: serves the sandbox until Ctrl-C. Every option also reads an environment variable.
import { parseArgs } from 'node:util';
import { MISBEHAVE_DESCRIPTIONS, MISBEHAVE_HEADER, MISBEHAVE_MODES, parseMisbehave } from './misbehave.js';
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
  --latency MS          added to every answer; with --latency-p99, the median service time
                        (SANDBOX_LATENCY_MS; default 0)
  --latency-p99 MS      99th percentile of the service time: log-normal between the two, seeded
                        (SANDBOX_LATENCY_P99_MS; default: equal to --latency, a fixed latency)
  --rate N              requests per second per key through a token bucket, else 429 with
                        Retry-After: 1 (SANDBOX_RATE; default none)
  --burst N             the most a key's bucket holds (SANDBOX_BURST; default: the rate, at least 1)
  --capacity N          requests in service at once; more wait in a FIFO queue (SANDBOX_CAPACITY;
                        default none)
  --fault-rate R        share of requests answered 500, 0 to 1 (SANDBOX_FAULT_RATE; default 0)
  --seed S              changes every synthetic record (SANDBOX_SEED; default "sandbox")
  --misbehave M1,M2     misbehave on every request (SANDBOX_MISBEHAVE; default none); one request
                        can ask with the header ${MISBEHAVE_HEADER}: M1,M2. Modes:
${MISBEHAVE_MODES.map((m) => `                          ${m.padEnd(17)} ${MISBEHAVE_DESCRIPTIONS[m]}`).join('\n')}
`;

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    https: { type: 'boolean' },
    keys: { type: 'string' },
    allowance: { type: 'string' },
    'allowance-window': { type: 'string' },
    latency: { type: 'string' },
    'latency-p99': { type: 'string' },
    rate: { type: 'string' },
    burst: { type: 'string' },
    capacity: { type: 'string' },
    'fault-rate': { type: 'string' },
    seed: { type: 'string' },
    misbehave: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}

const env = process.env;
const num = (flag: string | undefined, variable: string | undefined): number | undefined => {
  const text = flag ?? variable;
  if (text === undefined || text === '') return undefined;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(`enrich-sandbox: expected a non-negative number, got "${text}"\n`);
    process.exit(2);
  }
  return value;
};

const misbehave = parseMisbehave(values.misbehave ?? env.SANDBOX_MISBEHAVE);
if (!misbehave.ok) {
  process.stderr.write(`enrich-sandbox: ${misbehave.message}\n`);
  process.exit(2);
}

const windowSeconds = num(values['allowance-window'], env.SANDBOX_ALLOWANCE_WINDOW);
const latencyMs = num(values.latency, env.SANDBOX_LATENCY_MS);
const latencyP99Ms = num(values['latency-p99'], env.SANDBOX_LATENCY_P99_MS);
const median = latencyMs ?? 0;
if (latencyP99Ms !== undefined && latencyP99Ms !== median && !(median > 0 && latencyP99Ms > median)) {
  process.stderr.write(
    'enrich-sandbox: --latency-p99 must be above --latency (the median), and the median above 0\n',
  );
  process.exit(2);
}
const rate = num(values.rate, env.SANDBOX_RATE);
const burst = num(values.burst, env.SANDBOX_BURST);
if (burst !== undefined && burst < 1) {
  process.stderr.write(`enrich-sandbox: --burst takes a number of at least 1, got ${burst}\n`);
  process.exit(2);
}
const capacity = num(values.capacity, env.SANDBOX_CAPACITY);
if (capacity !== undefined && (!Number.isInteger(capacity) || capacity < 1)) {
  process.stderr.write(`enrich-sandbox: --capacity takes a whole number of at least 1, got ${capacity}\n`);
  process.exit(2);
}
const server = await startSandboxServer({
  port: num(values.port, env.SANDBOX_PORT) ?? 8787,
  host: values.host ?? env.SANDBOX_HOST ?? '127.0.0.1',
  https: values.https ?? env.SANDBOX_HTTPS === '1',
  keys: (values.keys ?? env.SANDBOX_KEYS ?? DEMO_KEY).split(',').map((k) => k.trim()),
  allowance: num(values.allowance, env.SANDBOX_ALLOWANCE),
  allowanceWindowMs: windowSeconds === undefined ? undefined : windowSeconds * 1000,
  latencyMs,
  latencyP99Ms,
  rate,
  burst,
  capacity,
  faultRate: num(values['fault-rate'], env.SANDBOX_FAULT_RATE),
  seed: values.seed ?? env.SANDBOX_SEED,
  misbehave: misbehave.modes,
});

/** The service model in force, when any knob of it is set: a line for the banner. */
function loadLine(): string {
  const knobs = server.sandbox.knobs();
  const parts: string[] = [];
  if (Number.isFinite(knobs.rate)) parts.push(`${knobs.rate} requests/s per key (burst ${knobs.burst})`);
  if (Number.isFinite(knobs.capacity)) parts.push(`${knobs.capacity} in service at once`);
  if (knobs.latencyP99Ms > knobs.latencyMs)
    parts.push(`latency median ${knobs.latencyMs} ms, p99 ${knobs.latencyP99Ms} ms`);
  return parts.length > 0 ? `\n  Service model: ${parts.join('; ')}` : '';
}

process.stdout.write(`Enrichment sandbox listening on ${server.url}
  Use it as both base URLs (v2 and v3).
  Demo API key: ${DEMO_KEY}   (a sandbox key, not a secret)
  Admin token: ${server.adminToken}   (header ${ADMIN_HEADER}, or x-api-key with a key, for /__sandbox/*)
  Stats: GET ${server.url}/__sandbox/stats${loadLine()}${misbehave.modes.length > 0 ? `\n  Misbehaving on every request: ${misbehave.modes.join(', ')}` : ''}
Ctrl-C to stop.
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
