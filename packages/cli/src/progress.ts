// Progress of a bulk run: a bar on a terminal, a plain line every few seconds otherwise (a log, CI),
// or nothing. The file's size is known and its row count is not: the total is estimated by the
// engine's estimatedRows from the rows read per byte read so far.
// What matters most comes first (issue 40): the share, rows, transactions and time left, then the
// rows per second and the pace, so that a narrow terminal (80 columns) cuts only the least of it.
import { estimatedRows } from '@enrich/bulk';
import { type PaceReading, paceText } from '@enrich/core';
import cliProgress from 'cli-progress';
import { grouped, terminalText } from './terminal-text.js';
import { timeLeft } from './time-left.js';

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
  /**
   * The person asked the run to stop (Ctrl-C): the figures as they stand stay on screen, on a line
   * of their own, and nothing more is drawn. True when the cursor is then at the start of a fresh
   * line (else the caller starts one: the terminal echoed ^C where the cursor was).
   */
  interrupt(): boolean;
  stop(): void;
}

interface Stream {
  write(text: string): unknown;
}

/** Bar width for a terminal this wide: what is left beside about 70 columns of figures, 10 to 40. */
export function barWidth(columns: number | undefined): number {
  return Math.max(10, Math.min(40, (columns ?? 80) - 70));
}

export function barProgress(
  stream: NodeJS.WritableStream & { columns?: number },
  label: string,
): ProgressReporter {
  let bar: cliProgress.SingleBar | undefined;
  let timer: NodeJS.Timeout | undefined;
  let read: (() => ProgressSnapshot) | undefined;
  let totalBytes = 0;
  const eta = timeLeft(Date.now);
  const payload = (s: ProgressSnapshot, stopped = false) => {
    const left = eta.update(s.written, s.transactions, estimatedRows({ ...s, totalBytes }));
    return {
      written: grouped(s.written),
      rate: grouped(Math.round(eta.rowsPerSecond(s.written))),
      spent: grouped(s.transactions),
      left: stopped ? 'stopped' : left === undefined ? '... left' : `${duration(left)} left`,
      pace: s.pace ? terminalText(paceText(s.pace)) : '',
    };
  };
  const halt = (keep: boolean): boolean => {
    if (timer) clearInterval(timer);
    timer = undefined;
    const drawn = bar !== undefined && read !== undefined;
    if (bar && read) {
      const s = read();
      // Interrupted, the bar keeps its share of the file; finished, it is cleared anyway.
      bar.setTotal(keep ? estimatedRows({ ...s, totalBytes }) : Math.max(s.written, 1));
      bar.update(s.written, payload(s, keep));
      (bar as unknown as { options: { clearOnComplete: boolean } }).options.clearOnComplete = !keep;
      bar.stop();
    }
    bar = undefined;
    return drawn;
  };
  return {
    start(size, reader) {
      read = reader;
      totalBytes = size;
      bar = new cliProgress.SingleBar(
        {
          stream,
          barsize: barWidth(stream.columns),
          // The bar writes its own control sequences (its stream is not filtered): its words are.
          format: `${terminalText(label)} {bar} {percentage}% | {written} rows | {spent} transactions | {left} | {rate} rows/s | {pace}`,
          hideCursor: true,
          clearOnComplete: true,
          // Ctrl-C is the command's to handle (commands/bulk.ts), which calls interrupt().
          gracefulExit: false,
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
    interrupt: () => halt(true),
    stop: () => {
      halt(false);
    },
  };
}

export function lineProgress(stream: Stream, label: string, everyMs = 10_000): ProgressReporter {
  let timer: NodeJS.Timeout | undefined;
  // Its lines end with a line break: the cursor is always at the start of one.
  const end = (): boolean => {
    if (timer) clearInterval(timer);
    timer = undefined;
    return true;
  };
  return {
    start(totalBytes, read) {
      const eta = timeLeft(Date.now);
      timer = setInterval(() => {
        const s = read();
        const total = estimatedRows({ ...s, totalBytes });
        const share = Math.floor((100 * s.written) / total);
        const left = eta.update(s.written, s.transactions, total);
        stream.write(
          `${label}: ${grouped(s.written)} rows written (about ${share}% of the file), ` +
            `${grouped(s.transactions)} transactions, ${left === undefined ? 'time left not known yet' : `about ${duration(left)} left`}, ` +
            `${grouped(Math.round(eta.rowsPerSecond(s.written)))} rows/s` +
            `${s.pace ? `; pace ${paceText(s.pace)}` : ''}\n`,
        );
      }, everyMs);
      timer.unref();
    },
    interrupt: end,
    stop: () => {
      end();
    },
  };
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}
