// A reader that goes away: `enrich ... --out - | head -1` closes the pipe after one line, and the
// command's next write to it fails with EPIPE. Node ignores SIGPIPE, so instead of dying quietly as
// a C program would, the write's error is emitted on the stream: unheard, it crashed the command with
// a stack trace ("unexpected error: Error: write EPIPE"). Here it is heard and noted, and the
// command ends as shells expect of a program whose reader left: exit 141 (128 + SIGPIPE, core's
// EXIT_CODES.brokenPipe), after everything else has ended as usual: the journal and the spend ledger
// are written by then, since a run's answers were paid for whether or not anyone reads its output.

import { setImmediate } from 'node:timers/promises';

/** Thrown by written() when the reader of the stream has gone. */
export class BrokenPipe extends Error {
  constructor() {
    super('the reader of the output closed the pipe (broken pipe)');
    this.name = 'BrokenPipe';
  }
}

/** Whether an error is a write to a pipe whose reader has gone (or to the stream that write ended). */
export function isBrokenPipe(error: unknown): boolean {
  if (error instanceof BrokenPipe) return true;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EPIPE' || code === 'ERR_STREAM_DESTROYED';
}

/** Whether the reader of a watched stream has gone. */
export interface PipeWatch {
  readonly broken: boolean;
}

/**
 * Listens for the stream's errors for the rest of the process (a late write's error comes after
 * the command returns): a broken pipe is noted, never thrown; any other error is thrown as before,
 * unheard.
 */
export function watchPipe(stream: NodeJS.WritableStream): PipeWatch {
  const watch = { broken: false };
  stream.on('error', (error: unknown) => {
    if (!isBrokenPipe(error)) throw error;
    watch.broken = true;
  });
  return watch;
}

/**
 * Writes a chunk and waits until the stream has taken it (so a writer of much never runs ahead of a
 * slow reader); rejects with BrokenPipe when the reader has gone.
 */
export function written(stream: NodeJS.WritableStream, chunk: Buffer | string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    stream.write(chunk, (error?: Error | null) => {
      if (!error) resolve();
      else reject(isBrokenPipe(error) ? new BrokenPipe() : error);
    });
  });
}

/**
 * Waits until what was written to the stream has left it, and a turn of the event loop more, so that
 * the error of a last write to a reader that went away has been emitted (Node emits it a tick later).
 */
export async function flushed(stream: NodeJS.WritableStream): Promise<void> {
  const pending = (stream as { writableLength?: number }).writableLength ?? 0;
  if (pending > 0) await new Promise<void>((resolve) => stream.write('', () => resolve()));
  await setImmediate();
}
