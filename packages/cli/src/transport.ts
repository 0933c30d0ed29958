// The HTTP transport of the command: core's fetch transport over Node's fetch (undici).
//
// Node's fetch sends through undici's global dispatcher. The command installs its own, from the
// undici release that Node 20 bundles, to say what a bulk run needs:
// - keep-alive: connections stay open between requests (a run reuses the same few dozen sockets
//   instead of opening one per request);
// - no cap on connections per origin, so --concurrency 32 means 32 sockets to the one host;
// - the per-attempt timeout as the dispatcher's headers and body timeouts, rather than a timeout
//   signal per request (AbortSignal.timeout keeps a timer and the request alive until it fires, and
//   costs CPU per request: at hundreds of requests a second that shows).
import type { Transport } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { Agent, setGlobalDispatcher } from 'undici';

let installedTimeoutMs: number | undefined;

export function bulkTransport(timeoutMs: number, signal?: AbortSignal): Transport {
  if (installedTimeoutMs !== timeoutMs) {
    setGlobalDispatcher(
      new Agent({
        keepAliveTimeout: 30_000,
        keepAliveMaxTimeout: 60_000,
        connections: null,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      }),
    );
    installedTimeoutMs = timeoutMs;
  }
  return createFetchTransport(signal ? { signal } : {});
}
