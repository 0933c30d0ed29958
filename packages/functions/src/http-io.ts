// Reading a request's body and writing a JSON answer, as the engines send and take them: a body may
// come compressed (Snowflake's COMPRESSION = GZIP or DEFLATE sets Content-Encoding; AUTO is GZIP on
// AWS), and is read whole up to a cap that also bounds what a compressed body unpacks to. An answer
// is JSON, compressed with gzip when the caller accepts it and it is worth it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { createGunzip, createInflate, gzipSync } from 'node:zlib';

/** The largest body read (after decompression): Cloud Run's own request limit is 32 MiB. */
export const MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Answers smaller than this are sent as they are. */
const COMPRESS_FROM_BYTES = 1024;

export class BodyProblem extends Error {
  constructor(
    message: string,
    readonly status: 400 | 413 | 415,
  ) {
    super(message);
  }
}

/** The body as text, decompressed; rejects with a BodyProblem saying why it cannot be read. */
export function readBody(request: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<string> {
  const encoding = String(request.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  let source: Readable = request;
  if (encoding === 'gzip' || encoding === 'x-gzip') source = request.pipe(createGunzip());
  else if (encoding === 'deflate') source = request.pipe(createInflate());
  else if (encoding !== 'identity' && encoding !== '')
    return Promise.reject(
      new BodyProblem(
        `Content-Encoding ${encoding.slice(0, 20)} is not read here (gzip, deflate or none)`,
        415,
      ),
    );
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    source.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        source.destroy();
        request.resume();
        reject(new BodyProblem(`The body is larger than ${maxBytes} bytes; send smaller batches`, 413));
        return;
      }
      chunks.push(chunk);
    });
    source.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    // A decompression error says nothing of the data; a dropped connection ends the request anyway.
    source.on('error', () => reject(new BodyProblem(`The body could not be read as ${encoding}`, 400)));
    request.on('aborted', () => reject(new BodyProblem('The request was cut off', 400)));
  });
}

/** Writes `value` as JSON with `status`; gzip when accepted. Never throws (the caller may be gone). */
export function sendJson(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  value: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  let body = Buffer.from(JSON.stringify(value), 'utf8');
  const out: Record<string, string | number> = { 'content-type': 'application/json', ...headers };
  if (
    body.length >= COMPRESS_FROM_BYTES &&
    /\bgzip\b/i.test(String(request.headers['accept-encoding'] ?? ''))
  ) {
    body = gzipSync(body);
    out['content-encoding'] = 'gzip';
  }
  out['content-length'] = body.length;
  try {
    response.writeHead(status, out);
    response.end(body);
  } catch {
    // The connection closed meanwhile: the work is done and kept; nobody is left to tell.
  }
}
