// The benchmark's sandbox, in a process of its own so that the enrich process's CPU time and memory
// are its own. Prints its URL as one JSON line, then serves until killed.
import { startSandboxServer } from '@enrich/sandbox';

const latencyMs = Number(process.argv[2] ?? '50');
const server = await startSandboxServer({ host: '127.0.0.1', port: 0, latencyMs });
process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void server.close().then(() => process.exit(0)));
}
