// The benchmark's sandbox, in a process of its own so that the enrich process's CPU time and memory
// are its own. Its argument is a latency in ms, or a JSON object of the sandbox's options (a service
// model: rate, burst, capacity, overload, windowLimit, latencyMs, latencySigma, ...). Prints its URL
// and admin token as one JSON line, then serves until killed.
import { type ServerOptions, startSandboxServer } from '@enrich/sandbox';

const arg = process.argv[2] ?? '50';
const options: ServerOptions = arg.startsWith('{') ? JSON.parse(arg) : { latencyMs: Number(arg) };
const server = await startSandboxServer({ ...options, host: '127.0.0.1', port: 0 });
process.stdout.write(`${JSON.stringify({ url: server.url, adminToken: server.adminToken })}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void server.close().then(() => process.exit(0)));
}
