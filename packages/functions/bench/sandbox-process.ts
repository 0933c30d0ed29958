// The benchmark's sandbox, in a process of its own, so that the client measured (the CLI, or the
// bench sending batches to enrich-functions) does not share its event loop. Its argument is a JSON
// object of the sandbox's options (a service model); prints its URL as one JSON line, then serves
// until killed, answering `stats` on its stdin with one JSON line of its stats.
import { createInterface } from 'node:readline';
import { type ServerOptions, startSandboxServer } from '@enrich/sandbox';

const options: ServerOptions = JSON.parse(process.argv[2] ?? '{}');
const server = await startSandboxServer({ ...options, host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'stats') process.stdout.write(`${JSON.stringify(server.sandbox.stats())}\n`);
  if (line.trim() === 'reset') {
    server.sandbox.reset();
    process.stdout.write('{}\n');
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void server.close().then(() => process.exit(0)));
}
