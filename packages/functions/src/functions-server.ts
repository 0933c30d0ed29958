// The HTTP server the warehouses call:
//   POST /bigquery                       BigQuery remote functions (protocols/bigquery.ts)
//   POST /snowflake, /snowflake/<op>     Snowflake external functions (protocols/snowflake.ts)
//   POST /rows                           anything else: Databricks' http_request, Spark, a script
//   GET  /healthz                        200 while the process serves (no credential, nothing in it)
// Each POST is authenticated (auth.ts), read (http-io.ts), made a batch by its protocol, answered
// through the purchase path (purchases.ts) and given the status batch-verdict.ts chose. A Snowflake
// batch sent again while its first copy is still being answered here (the same batch id and the same
// body: Snowflake's idempotency token) waits for that answer instead of being answered twice.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { BatchAnswer } from './batch-verdict.js';
import { BodyProblem, readBody, sendJson } from './http-io.js';
import type { Severity } from './log.js';
import type { BatchRequest } from './protocols/batch-request.js';
import { bigQueryRequest } from './protocols/bigquery.js';
import { rowsRequest } from './protocols/rows.js';
import { snowflakeBatchId, snowflakeRequest } from './protocols/snowflake.js';
import type { Purchases } from './purchases.js';

export interface FunctionsServerDeps {
  readonly purchases: Purchases;
  /** Undefined when the request may go on, else why not. */
  readonly authenticate: (headers: IncomingMessage['headers']) => string | undefined;
  readonly log: (text: string, severity?: Severity) => void;
  readonly version: string;
}

interface Answer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

/** BigQuery shows errorMessage when it is under 1 KB. */
const MAX_MESSAGE_CHARS = 1000;

const failure = (status: number, message: string, headers?: Record<string, string>): Answer => ({
  status,
  body: {
    errorMessage:
      message.length > MAX_MESSAGE_CHARS ? `${message.slice(0, MAX_MESSAGE_CHARS - 1)}…` : message,
  },
  ...(headers ? { headers } : {}),
});

type Route = { readonly protocol: 'bigquery' | 'snowflake' | 'rows'; readonly operation?: string };

function routeOf(path: string): Route | undefined {
  if (path === '/bigquery') return { protocol: 'bigquery' };
  if (path === '/rows') return { protocol: 'rows' };
  if (path === '/snowflake') return { protocol: 'snowflake' };
  const match = /^\/snowflake\/([A-Za-z_-]{1,40})$/.exec(path);
  return match ? { protocol: 'snowflake', operation: match[1] as string } : undefined;
}

type Batch = Extract<BatchRequest, { kind: 'batch' }>;

/** The POST endpoints: a request through authentication, its body, its protocol and the purchase path. */
class BatchEndpoints {
  /** Snowflake batches being answered, by batch id and body. */
  private readonly inFlight = new Map<string, Promise<Answer>>();

  constructor(private readonly deps: FunctionsServerDeps) {}

  async handle(request: IncomingMessage, route: Route, started: number): Promise<Answer> {
    const refusal = this.deps.authenticate(request.headers);
    if (refusal) {
      this.deps.log(`401 ${route.protocol}: ${refusal}`, 'WARNING');
      return failure(401, `Not authenticated: ${refusal}`, { 'www-authenticate': 'Bearer' });
    }
    let text: string;
    try {
      text = await readBody(request);
    } catch (error) {
      if (!(error instanceof BodyProblem)) throw error;
      this.deps.log(`${error.status} ${route.protocol}: ${error.message}`, 'WARNING');
      return failure(error.status, error.message);
    }
    const batchId = route.protocol === 'snowflake' ? snowflakeBatchId(request.headers) : undefined;
    if (batchId === undefined) return this.answer(request, route, text, started);
    const key = `${batchId}\n${createHash('sha256').update(text).digest('hex')}`;
    const running = this.inFlight.get(key);
    if (running) {
      this.deps.log(`snowflake: batch ${batchId.slice(0, 120)} sent again while being answered; joined`);
      return running;
    }
    const answer = this.answer(request, route, text, started);
    this.inFlight.set(key, answer);
    try {
      return await answer;
    } finally {
      this.inFlight.delete(key);
    }
  }

  private async answer(
    request: IncomingMessage,
    route: Route,
    text: string,
    started: number,
  ): Promise<Answer> {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // Never the parser's message: it quotes the body, which holds rows.
      this.deps.log(`400 ${route.protocol}: the body is not JSON`, 'WARNING');
      return failure(400, 'The body is not JSON');
    }
    const batch: BatchRequest =
      route.protocol === 'bigquery'
        ? bigQueryRequest(body)
        : route.protocol === 'snowflake'
          ? snowflakeRequest(body, request.headers, route.operation)
          : rowsRequest(body);
    if (batch.kind === 'refused') {
      this.deps.log(`400 ${route.protocol}: ${batch.message}`, 'WARNING');
      return failure(400, batch.message);
    }
    const answer = await this.deps.purchases.answer(batch.op, batch.rows, batch.budget);
    const result = answerOf(answer, batch);
    this.logBatch(route.protocol, batch, answer, result.status, Date.now() - started);
    return result;
  }

  private logBatch(protocol: string, batch: Batch, answer: BatchAnswer, status: number, ms: number): void {
    const t = answer.tally;
    const said = answer.kind === 'answered' ? '' : `: ${answer.message}`;
    this.deps.log(
      `${protocol} ${batch.op.id}: ${t.rows} rows, ${t.distinct} distinct; ${t.fromStore} from the store, ${t.bought} bought, ${t.invalid} invalid, ${t.budget} budget, ${t.errors} errors; ${status} in ${ms} ms${batch.trace ? `; ${batch.trace}` : ''}${said}`,
      status === 200 ? 'INFO' : 'WARNING',
    );
  }
}

function answerOf(answer: BatchAnswer, batch: Batch): Answer {
  if (answer.kind === 'answered') return { status: 200, body: batch.respond(answer.replies) };
  if (answer.kind === 'refused') return failure(400, answer.message);
  const wait = answer.retryAfterSeconds;
  return failure(503, answer.message, wait === undefined ? undefined : { 'retry-after': String(wait) });
}

export function createFunctionsServer(deps: FunctionsServerDeps): Server {
  const endpoints = new BatchEndpoints(deps);
  const server = createServer((request, response) => {
    const started = Date.now();
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path === '/healthz') {
      if (request.method !== 'GET' && request.method !== 'HEAD')
        return sendJson(request, response, 405, { errorMessage: 'GET only' }, { allow: 'GET' });
      return sendJson(request, response, 200, { status: 'ok', version: deps.version });
    }
    const route = routeOf(path);
    if (!route)
      return sendJson(request, response, 404, {
        errorMessage: 'Not found: POST /bigquery, /snowflake, /rows; GET /healthz',
      });
    if (request.method !== 'POST')
      return sendJson(request, response, 405, { errorMessage: 'POST only' }, { allow: 'POST' });
    endpoints.handle(request, route, started).then(
      (answer) => sendJson(request, response, answer.status, answer.body, answer.headers),
      (error: unknown) => {
        deps.log(
          `500 ${route.protocol}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
          'ERROR',
        );
        sendJson(request, response, 500, { errorMessage: 'Internal error of enrich-functions; see its log' });
      },
    );
  });
  // Behind a load balancer, idle connections must outlive the balancer's own keep-alive.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  return server;
}
