// Progress of a bulk run: a bar on a terminal, a plain line every few seconds otherwise (a log, CI),
// or nothing. The file's size is known and its row count is not: the total is estimated by the
// engine's estimatedRows from the rows read per byte read so far.
import { estimatedRows } from '@enrich/bulk';
import { type PaceReading, paceText } from '@enrich/core';
import cliProgress from 'cli-progress';
import { grouped, terminalText } from './terminal-text.js';

export interface ProgressSnapshot {
  /** Rows read, and rows written to the output. */
  readonly rows: number;
  readonly written: number;
  /** Bytes of the input read so far. */
  readonly bytes: number;
  readonly transactions: number;
  /** The pace now, and why it last changed. */
  readonly pace?: PaceReading;
}

export interface ProgressReporter {
  start(totalBytes: number, read: () => ProgressSnapshot): void;
  stop(): void;
}

interface Stream {
  write(text: string): unknown;
}

export function barProgress(stream: NodeJS.WritableStream, label: string): ProgressReporter {
  let bar: cliProgress.SingleBar | undefined;
  let timer: NodeJS.Timeout | undefined;
  let read: (() => ProgressSnapshot) | undefined;
  let started = 0;
  let totalBytes = 0;
  const payload = (s: ProgressSnapshot) => {
    const elapsed = Date.now() - started;
    const perMs = elapsed > 0 ? s.written / elapsed : 0;
    const left = estimatedRows({ ...s, totalBytes }) - s.written;
    return {
      written: grouped(s.written),
      rate: rate(s.written, elapsed),
      spent: grouped(s.transactions),
      remaining: perMs > 0 ? duration(left / perMs) : '...',
      pace: s.pace ? terminalText(paceText(s.pace)) : '',
    };
  };
  return {
    start(size, reader) {
      read = reader;
      totalBytes = size;
      started = Date.now();
      bar = new cliProgress.SingleBar(
        {
          stream,
          // The bar writes its own control sequences (its stream is not filtered): its words are.
          format: `${terminalText(label)} {bar} {percentage}% | {written} rows | {rate} rows/s | {spent} transactions | ETA {remaining} | {pace}`,
          hideCursor: true,
          clearOnComplete: true,
        },
        cliProgress.Presets.shades_classic,
      );
      const show = () => {
        const s = reader();
        bar?.setTotal(estimatedRows({ ...s, totalBytes }));
        bar?.update(s.written, payload(s));
      };
      bar.start(1, 0, payload(reader()));
      show();
      timer = setInterval(show, 200);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      if (bar && read) {
        const s = read();
        bar.setTotal(Math.max(s.written, 1));
        bar.update(s.written, payload(s));
        bar.stop();
      }
      bar = undefined;
    },
  };
}

export function lineProgress(stream: Stream, label: string, everyMs = 10_000): ProgressReporter {
  let timer: NodeJS.Timeout | undefined;
  return {
    start(totalBytes, read) {
      const started = Date.now();
      timer = setInterval(() => {
        const s = read();
        const share = Math.floor((100 * s.written) / estimatedRows({ ...s, totalBytes }));
        stream.write(
          `${label}: ${grouped(s.written)} rows written (about ${share}% of the file), ` +
            `${rate(s.written, Date.now() - started)} rows/s, ${grouped(s.transactions)} transactions` +
            `${s.pace ? `; pace ${paceText(s.pace)}` : ''}\n`,
        );
      }, everyMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

function rate(rows: number, ms: number): string {
  return ms > 0 ? grouped(Math.round((rows * 1000) / ms)) : '0';
}
