// The last line of defence for the API key: every string the command prints passes through core's
// scrubber, which replaces the key (as is, JSON-escaped, URL-encoded, and each part of a key pasted
// with a line break in it) with "[key hidden]". Messages are written never to hold the key; this
// catches what a library or a hostile service might still put in one.
import { createScrubber } from '@enrich/core';

export interface Scrub {
  (text: string): string;
  /** Adds a secret learnt later (a key typed at the prompt). */
  add(secret: string): void;
}

export function keyScrubber(secrets: readonly (string | undefined)[]): Scrub {
  const known = secrets.filter((s): s is string => typeof s === 'string' && s !== '');
  let scrub = createScrubber(known);
  const fn = ((text: string) => scrub(text)) as Scrub;
  fn.add = (secret: string) => {
    if (secret === '' || known.includes(secret)) return;
    known.push(secret);
    scrub = createScrubber(known);
  };
  return fn;
}

/** The stream, with every write scrubbed (everything else, TTY methods included, as it was). */
export function scrubbedStream<T extends NodeJS.WritableStream>(
  stream: T,
  scrub: (text: string) => string,
): T {
  const wrapped = Object.create(stream) as T;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  (wrapped as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === 'string' || Buffer.isBuffer(chunk) ? scrub(String(chunk)) : chunk, ...rest);
  return wrapped;
}
