// `pnpm --filter @enrich/sandbox tour`: starts the sandbox and makes one call of each of the nine
// operations through core (validation, request builder, fetch transport, response reader),
// printing each result as the flat columns every client shows.
import { abortableSleep, callOperation, flattenRecord, OPERATIONS, outputColumns } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { DEMO_KEY } from './sandbox.js';
import { startSandboxServer } from './server.js';

const server = await startSandboxServer();
const transport = createFetchTransport({ timeoutMs: 10_000 });
const settings = { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url };
process.stdout.write(`Sandbox on ${server.url}: one call of each operation\n`);
let failures = 0;
for (const op of OPERATIONS) {
  const report = await callOperation(op, op.example, {
    transport,
    settings,
    sleep: (ms) => abortableSleep(ms),
    now: Date.now,
  });
  const outcome = report.outcome;
  process.stdout.write(`\n${op.title}  POST ${op.path}  ${JSON.stringify(op.example)}\n`);
  if (outcome.kind !== 'record') {
    failures++;
    process.stdout.write(`  ${outcome.kind === 'error' ? outcome.error.message : 'no match'}\n`);
    continue;
  }
  const columns = outputColumns(op);
  const values = flattenRecord(op, outcome.record);
  const shown = columns
    .map((column, i) => [column, values[i]] as const)
    .filter(([, value]) => value !== '' && value !== null)
    .slice(0, 10)
    .map(([column, value]) => `${column}=${String(value)}`);
  process.stdout.write(`  200: ${shown.join('  ')}${columns.length > 10 ? '  ...' : ''}\n`);
}
process.stdout.write(
  `\n${OPERATIONS.length - failures} of ${OPERATIONS.length} operations answered; transactions spent: ${server.sandbox.transactions()}\n`,
);
await server.close();
process.exitCode = failures === 0 ? 0 : 1;
