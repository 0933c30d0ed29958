// The HTTP transport of the command: core's fetch transport over Node's fetch (undici).
//
// Core's transport never follows a redirect, reads the body up to a size cap, and gives each
// exchange one deadline (--timeout) from sending to the last byte of the body: a body that trickles
// in one byte every few seconds cannot hold a request past it (an idle timer would never fire).
//
// Node's fetch sends through undici's global dispatcher. The command installs its own, from the
// undici release that Node 20 bundles, to say what a bulk run needs:
// - keep-alive: connections stay open between requests (a run reuses the same few dozen sockets
//   instead of opening one per request);
// - no cap on connections per origin, so --concurrency 32 means 32 sockets to the one host;
// - no idle timers of its own (headers, body): the deadline above covers the whole exchange.
import type { Transport } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { Agent, setGlobalDispatcher } from 'undici';

let installed = false;

/** `signal` aborts every exchange in flight (the run abandons them after Ctrl-C). */
export function bulkTransport(timeoutMs: number, signal?: AbortSignal): Transport {
  if (!installed) {
    setGlobalDispatcher(
      new Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 60_000,
        connections: null,
        headersTimeout: 0,
        bodyTimeout: 0,
      }),
    );
    installed = true;
  }
  return createFetchTransport(signal ? { timeoutMs, signal } : { timeoutMs });
}
