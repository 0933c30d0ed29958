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
//
// One exchange is an `Exchange`: its state in fields, its steps named (start, receive, take,
// settle, fail, lost, stop). The transport holds what exchanges share (`Shared`: the deadline, the
// cap, the abort signal, each scheme's pool of connections, the parsed addresses).
import {
  type ClientRequest,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingMessage,
} from 'node:http';
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
  const shared: Shared = {
    timeoutMs: options.timeoutMs,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    cancel: new AbortSet(options.signal),
    targets: new Targets(),
  };
  return (request: HttpRequest) =>
    new Promise<HttpResponse>((resolve, reject) => {
      const target = shared.targets.of(request.url);
      if (typeof target === 'string') reject(new Error(target));
      else new Exchange(shared, resolve, reject).start(target, request);
    });
}

/** What every exchange of one transport shares. */
interface Shared {
  readonly timeoutMs: number | undefined;
  readonly maxBodyBytes: number;
  readonly cancel: AbortSet;
  readonly targets: Targets;
}

/** One request and its answer, settled once: resolved with the response, or rejected. */
class Exchange {
  private req: ClientRequest | undefined;
  private response: IncomingMessage | undefined;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private settled = false;
  /** The body was handed to the connection whole ('finish'). */
  private sentWhole = false;
  private timer: NodeJS.Timeout | undefined;
  private forget: () => boolean = () => false;

  constructor(
    private readonly shared: Shared,
    private readonly resolve: (response: HttpResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {}

  start(target: Target, request: HttpRequest): void {
    // A string body goes out in one write with the headers (a Buffer would make it two).
    const { body } = request;
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
    this.req = req;
    req.on('error', (error) => this.lost(error));
    req.on('finish', () => {
      this.sentWhole = true;
    });
    const ms = this.shared.timeoutMs;
    if (ms !== undefined) this.timer = setTimeout(() => this.timedOut(ms), ms);
    // Called at once when the signal has already been given: nothing is sent then.
    this.forget = this.shared.cancel.add(() => this.stop(new Error('cancelled')));
    if (this.settled) return;
    req.on('response', (res) => this.receive(res));
    req.end(body);
  }

  private receive(res: IncomingMessage): void {
    this.response = res;
    res.on('data', (chunk: Buffer) => this.take(res, chunk));
    res.on('end', () => this.settle());
    res.on('aborted', () => this.settle('cut'));
    res.on('error', () => this.settle('cut'));
    res.on('close', () => {
      if (!res.complete) this.settle('cut');
    });
  }

  /** A chunk of the body, kept up to the cap. */
  private take(res: IncomingMessage, chunk: Buffer): void {
    if (this.settled) return;
    const room = this.shared.maxBodyBytes - this.bytes;
    if (chunk.length > room) {
      this.chunks.push(chunk.subarray(0, room));
      this.bytes += room;
      this.settle('too-big');
      // Stop downloading: nothing past the cap is kept (the connection is not reused).
      res.destroy();
      return;
    }
    this.chunks.push(chunk);
    this.bytes += chunk.length;
  }

  /** The answer, whole or with its body's problem: a response, never an error (it may be paid). */
  private settle(problem?: 'cut' | 'too-big'): void {
    if (this.settled) return;
    this.settled = true;
    this.cleanUp();
    const res = this.response as IncomingMessage;
    const text = Buffer.concat(this.chunks, this.bytes).toString('utf8');
    const answer = { status: res.statusCode ?? 0, headers: headersOf(res), body: text };
    this.resolve(problem ? { ...answer, bodyProblem: problem } : answer);
  }

  private fail(error: Error): void {
    if (this.settled) return;
    // After the headers, a broken exchange is a cut body (paid, kept), not a network error.
    if (this.response) {
      this.settle('cut');
      return;
    }
    this.settled = true;
    this.cleanUp();
    this.reject(error);
  }

  // A connection lost after the request went out whole: the service may have read and billed it
  // (not on a reused keep-alive connection: see the top of the file).
  private lost(error: Error): void {
    if (this.sentWhole && !this.req?.reusedSocket) {
      this.fail(unansweredError(`the connection was lost while waiting for the answer: ${error.message}`));
    } else {
      this.fail(error);
    }
  }

  private timedOut(ms: number): void {
    const text = `no complete answer within ${formatMs(ms)}`;
    this.stop(this.sentWhole ? unansweredError(text) : new Error(text));
  }

  private stop(error: Error): void {
    this.fail(error);
    this.req?.destroy(error);
  }

  private cleanUp(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.forget();
  }
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

/**
 * Each address parsed once: a run sends thousands of requests to one or two (given a URL,
 * http.request converts it again on every call, through URL's slow getters). With each scheme's
 * pool of keep-alive connections.
 */
class Targets {
  private readonly schemes = {
    'http:': { send: httpRequest, agent: new HttpAgent({ keepAlive: true, keepAliveMsecs: 30_000 }) },
    'https:': { send: httpsRequest, agent: new HttpsAgent({ keepAlive: true, keepAliveMsecs: 30_000 }) },
  };
  private readonly known = new Map<string, Target>();

  /** The target of a URL, or why there is none (a scheme other than http and https). */
  of(address: string): Target | string {
    const known = this.known.get(address);
    if (known !== undefined) return known;
    const url = new URL(address);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return `unsupported scheme ${url.protocol}`;
    const scheme = this.schemes[url.protocol];
    const target: Target = {
      send: scheme.send,
      agent: scheme.agent,
      protocol: url.protocol,
      // An IPv6 address is given to the socket without its brackets.
      hostname: url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port,
      path: url.pathname + url.search,
    };
    if (this.known.size < 16) this.known.set(address, target);
    return target;
  }
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
