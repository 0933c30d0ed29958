// The last line of defence for the API key: every string the command prints passes through core's
// scrubber, which replaces the key (as is, JSON-escaped, URL-encoded, and each part of a key pasted
// with a line break in it) with "[key hidden]". Messages are written never to hold the key; this
// catches what a library or a hostile service might still put in one.
import { createScrubber } from '@enrich/core';
import { terminalText } from './terminal-text.js';

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

const OWN_CONTROLS = Symbol('the stream for text whose control sequences are our own');

/**
 * The stream as the command prints to it: every write stripped of escape sequences and control
 * characters (terminalText: what a service or a file holds cannot retitle the window or clear the
 * screen), then scrubbed of the key. ownControls(stream) is the same stream scrubbed only, for the
 * one writer whose control sequences are meant: the progress bar.
 */
export function terminalStream<T extends NodeJS.WritableStream>(
  stream: T,
  scrub: (text: string) => string,
): T {
  const wrapped = scrubbedStream(stream, (text) => scrub(terminalText(text)));
  Object.defineProperty(wrapped, OWN_CONTROLS, { value: scrubbedStream(stream, scrub) });
  return wrapped;
}

/** The stream without terminalText (scrubbed of the key all the same), or the stream itself. */
export function ownControls<T extends NodeJS.WritableStream>(stream: T): T {
  return (stream as T & { [OWN_CONTROLS]?: T })[OWN_CONTROLS] ?? stream;
}
