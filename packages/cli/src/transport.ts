// The HTTP transport of a bulk run: the engine's transport over Node's http/https modules (no
// redirect followed, one deadline (--timeout) from sending to the last byte of the body, a size cap
// on bodies, keep-alive connections, as many as --concurrency). Node's fetch did the same at about
// twice the CPU per request: see packages/bulk/src/http-transport.ts.
import { createHttpTransport } from '@enrich/bulk';
import type { Transport } from '@enrich/core';

/** `signal` aborts every exchange in flight (the run abandons them after Ctrl-C). */
export function bulkTransport(timeoutMs: number, signal?: AbortSignal): Transport {
  return createHttpTransport(signal ? { timeoutMs, signal } : { timeoutMs });
}
