// The last line of defence for the API key: every string the command prints passes through core's
// scrubber, which replaces the key (as is, JSON-escaped, URL-encoded, and each part of a key pasted
// with a line break in it) with "[key hidden]". Messages are written never to hold the key; this
// catches what a library or a hostile service might still put in one.
//
// What is not printed but delivered, the output file that `--out -` copies to standard output
// (pipes.ts), goes out through asGiven(): its bytes exactly, never decoded, stripped or scrubbed
// here. It is the user's file, and must be the very bytes `--out file` writes. A workbook is a zip:
// decoded as text its bytes became U+FFFD and the workbook was destroyed (and the key could not be
// found inside its compressed parts anyway). A CSV or JSON Lines file is read in 64 KiB chunks that
// fall anywhere: decoded chunk by chunk, a character across two chunks became two U+FFFD, and a key
// across two would be missed. Nor is a second scrub needed: the engine scrubs what it writes into
// the file as it renders each piece (packages/bulk output-file.ts: the header, every answer, the
// extra columns, a CSV's or JSON Lines' rows; a workbook's output cells come from those same lines),
// so a key a service echoed, or one pasted into a text input, is "[key hidden]" on disk and so in
// the pipe.
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

const AS_GIVEN = Symbol('the stream as the command was given it, before any wrapper');

/**
 * The stream, with every write scrubbed (everything else, TTY methods included, as it was). Its
 * writes are text, each whole (a message, a line of progress): a Buffer is read as UTF-8 whole, so
 * bytes that are not text, or not all of it, belong through asGiven() instead.
 */
export function scrubbedStream<T extends NodeJS.WritableStream>(
  stream: T,
  scrub: (text: string) => string,
): T {
  const wrapped = Object.create(stream) as T;
  const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
  (wrapped as { write: unknown }).write = (chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === 'string' || Buffer.isBuffer(chunk) ? scrub(String(chunk)) : chunk, ...rest);
  Object.defineProperty(wrapped, AS_GIVEN, { value: asGiven(stream) });
  return wrapped;
}

/**
 * The stream as the command was given it, under every wrapper of this module: for the output file
 * that `--out -` delivers, whose bytes go out exactly as they are on disk (see the top of this file).
 */
export function asGiven<T extends NodeJS.WritableStream>(stream: T): T {
  return (stream as T & { [AS_GIVEN]?: T })[AS_GIVEN] ?? stream;
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
