#!/usr/bin/env -S npx tsx
// `pnpm sandbox`: serves the sandbox until Ctrl-C. Every option also reads an environment variable.
import { parseArgs } from 'node:util';
import { MISBEHAVE_DESCRIPTIONS, MISBEHAVE_HEADER, MISBEHAVE_MODES, parseMisbehave } from './misbehave.js';
import { DEMO_KEY } from './sandbox.js';
import { startSandboxServer } from './server.js';

const HELP = `enrich-sandbox: a local reference server of the enrichment API

Options (environment variable in brackets):
  --port N              port to listen on, 0 for any free one (SANDBOX_PORT; default 8787)
  --host H              address to listen on (SANDBOX_HOST; default 127.0.0.1)
  --https               serve HTTPS with a generated self-signed certificate (SANDBOX_HTTPS=1)
  --keys K1,K2          accepted API keys (SANDBOX_KEYS; default ${DEMO_KEY})
  --allowance N         billable transactions per key per window before 429 (SANDBOX_ALLOWANCE; default none)
  --allowance-window S  seconds until a key's allowance resets (SANDBOX_ALLOWANCE_WINDOW; default never)
  --latency MS          added to every answer (SANDBOX_LATENCY_MS; default 0)
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
const server = await startSandboxServer({
  port: num(values.port, env.SANDBOX_PORT) ?? 8787,
  host: values.host ?? env.SANDBOX_HOST ?? '127.0.0.1',
  https: values.https ?? env.SANDBOX_HTTPS === '1',
  keys: (values.keys ?? env.SANDBOX_KEYS ?? DEMO_KEY).split(',').map((k) => k.trim()),
  allowance: num(values.allowance, env.SANDBOX_ALLOWANCE),
  allowanceWindowMs: windowSeconds === undefined ? undefined : windowSeconds * 1000,
  latencyMs: num(values.latency, env.SANDBOX_LATENCY_MS),
  faultRate: num(values['fault-rate'], env.SANDBOX_FAULT_RATE),
  seed: values.seed ?? env.SANDBOX_SEED,
  misbehave: misbehave.modes,
});

process.stdout.write(`Enrichment sandbox listening on ${server.url}
  Use it as both base URLs (v2 and v3).
  Demo API key: ${DEMO_KEY}   (a sandbox key, not a secret)
  Stats: GET ${server.url}/__sandbox/stats${misbehave.modes.length > 0 ? `\n  Misbehaving on every request: ${misbehave.modes.join(', ')}` : ''}
Ctrl-C to stop.
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void server.close().then(() => process.exit(0));
  });
}
