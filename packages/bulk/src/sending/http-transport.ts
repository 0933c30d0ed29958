// A Transport over Node's own http/https modules, for bulk runs (the CLI; the extension host may use
// it too). It keeps the guarantees of core's fetch transport, at a fraction of fetch's CPU per
// request (fetch wraps every exchange in WHATWG streams and promises; at thousands of requests that
// was most of a run's CPU time):
// - Redirects are never followed (Node's http never does): a 3xx is returned as it is.
// - One deadline covers the whole exchange, headers and body (a body trickling one byte every few
//   seconds cannot hold a request past it). One timer per request, cleared when the exchange ends.
// - The body is read up to a size cap. A body that breaks off (connection lost, deadline, signal)
//   or passes the cap is returned with `bodyProblem` and what arrived, never thrown: once the
//   headers are in, a 200 has been paid for, and a thrown network error would be retried.
// - Keep-alive connections, as many as requests in flight: the concurrency is the caller's.
// - Before the headers, a failure says whether the request had been sent whole (the request's
//   'finish': the body was handed to the connection), as core's Transport asks:
//   - not yet (refused, DNS, TLS, a reset or the deadline while connecting or writing): a plain
//     error, which core retries;
//   - sent whole, then the deadline passed: `unansweredError`: the service may be working on it and
//     bill it, so it is not sent again (a slow service is not paid five times for one row);
//   - sent whole, then the connection was lost before any answer: also `unansweredError`, except on
//     a reused keep-alive connection (`reusedSocket`): there it is the race Node documents, the
//     service closing an idle connection as the request was written, which it never read, so it
//     stays a plain error and is retried.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import {
  DEFAULT_MAX_BODY_BYTES,
  type HttpRequest,
  type HttpResponse,
  type Transport,
  timeoutProblem,
  unansweredError,
} from '@enrich/core';
import { AbortSet } from './abort-set.js';

export interface HttpTransportOptions {
  /** The deadline of one exchange, from sending to the last byte of the body. */
  readonly timeoutMs?: number;
  /** Aborts every exchange in flight (Ctrl-C after the grace, Cancel). */
  readonly signal?: AbortSignal;
  /** The largest body read whole; beyond it the response has bodyProblem 'too-big'. */
  readonly maxBodyBytes?: number;
}

/** Throws a TypeError when `timeoutMs` is given but is not a usable deadline (core's timeoutProblem). */
export function createHttpTransport(options: HttpTransportOptions = {}): Transport {
  if (options.timeoutMs !== undefined) {
    const problem = timeoutProblem('timeoutMs', options.timeoutMs);
    if (problem) throw new TypeError(`createHttpTransport: ${problem}`);
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const cancel = new AbortSet(options.signal);
  // How each scheme sends, and its pool of keep-alive connections.
  const schemes = {
    'http:': { send: httpRequest, agent: new HttpAgent({ keepAlive: true, keepAliveMsecs: 30_000 }) },
    'https:': { send: httpsRequest, agent: new HttpsAgent({ keepAlive: true, keepAliveMsecs: 30_000 }) },
  };
  // Parsed once per address: a run sends thousands of requests to one or two (given a URL,
  // http.request converts it again on every call, through URL's slow getters).
  const targets = new Map<string, Target>();
  return (request: HttpRequest) =>
    new Promise<HttpResponse>((resolve, reject) => {
      let target = targets.get(request.url);
      if (target === undefined) {
        const url = new URL(request.url);
        if (url.protocol !== 'https:' && url.protocol !== 'http:') {
          reject(new Error(`unsupported scheme ${url.protocol}`));
          return;
        }
        target = targetOf(url, schemes[url.protocol]);
        if (targets.size < 16) targets.set(request.url, target);
      }
      // A string body goes out in one write with the headers (a Buffer would make it two).
      const { body } = request;
      let response: IncomingMessage | undefined;
      const chunks: Buffer[] = [];
      let bytes = 0;
      let settled = false;
      /** The body was handed to the connection whole ('finish'). */
      let sentWhole = false;
      const settle = (problem?: 'cut' | 'too-big') => {
        if (settled) return;
        settled = true;
        cleanUp();
        const res = response as IncomingMessage;
        const text = Buffer.concat(chunks, bytes).toString('utf8');
        const answer = { status: res.statusCode ?? 0, headers: headersOf(res), body: text };
        resolve(problem ? { ...answer, bodyProblem: problem } : answer);
      };
      const fail = (error: Error) => {
        if (settled) return;
        // After the headers, a broken exchange is a cut body (paid, kept), not a network error.
        if (response) {
          settle('cut');
          return;
        }
        settled = true;
        cleanUp();
        reject(error);
      };
      // A connection lost after the request went out whole: the service may have read and billed
      // it (not on a reused keep-alive connection: see the top of the file).
      const lost = (error: Error) =>
        sentWhole && !req.reusedSocket
          ? fail(unansweredError(`the connection was lost while waiting for the answer: ${error.message}`))
          : fail(error);
      // Named one by one: spreading urlToHttpOptions' object (eight fields, no prototype) into
      // each request's options showed in the profile.
      const req = target.send({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        path: target.path,
        method: request.method,
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: target.agent,
      });
      req.on('error', lost);
      req.on('finish', () => {
        sentWhole = true;
      });
      const stop = (error: Error) => {
        fail(error);
        req.destroy(error);
      };
      const ms = options.timeoutMs;
      const timer =
        ms !== undefined
          ? setTimeout(() => {
              const text = `no complete answer within ${formatMs(ms)}`;
              stop(sentWhole ? unansweredError(text) : new Error(text));
            }, ms)
          : undefined;
      let forget = () => false as boolean;
      const cleanUp = () => {
        if (timer !== undefined) clearTimeout(timer);
        forget();
      };
      forget = cancel.add(() => stop(new Error('cancelled')));
      if (settled) return;
      req.on('response', (res) => {
        response = res;
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          const room = maxBodyBytes - bytes;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            bytes += room;
            settle('too-big');
            // Stop downloading: nothing past the cap is kept (the connection is not reused).
            res.destroy();
            return;
          }
          chunks.push(chunk);
          bytes += chunk.length;
        });
        res.on('end', () => settle());
        res.on('aborted', () => settle('cut'));
        res.on('error', () => settle('cut'));
        res.on('close', () => {
          if (!res.complete) settle('cut');
        });
      });
      req.end(body);
    });
}

/** Where requests to one URL go, and how. */
interface Target {
  readonly send: typeof httpRequest;
  readonly agent: HttpAgent;
  readonly protocol: string;
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
}

function targetOf(url: URL, scheme: Pick<Target, 'send' | 'agent'>): Target {
  return {
    send: scheme.send,
    agent: scheme.agent,
    protocol: url.protocol,
    // An IPv6 address is given to the socket without its brackets.
    hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
    port: url.port,
    path: url.pathname + url.search,
  };
}

function headersOf(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  const all = res.headers;
  for (const name in all) {
    const value = all[name];
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}
