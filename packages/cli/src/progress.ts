// Progress of a bulk run: a bar on a terminal, a plain line every few seconds otherwise (a log, CI),
// or nothing. The file's size is known and its rows are not, so the bar and the ETA follow bytes.
import cliProgress from 'cli-progress';

export interface ProgressSnapshot {
  /** Rows read, and rows written to the output. */
  readonly rows: number;
  readonly written: number;
  /** Bytes of the input behind the rows written. */
  readonly bytes: number;
  readonly transactions: number;
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
  const payload = (s: ProgressSnapshot) => ({
    written: s.written.toLocaleString('en-US'),
    rate: rate(s.written, Date.now() - started),
    spent: s.transactions.toLocaleString('en-US'),
  });
  return {
    start(totalBytes, reader) {
      read = reader;
      started = Date.now();
      bar = new cliProgress.SingleBar(
        {
          stream,
          format: `${label} {bar} {percentage}% | {written} rows | {rate} rows/s | {spent} transactions | ETA {eta_formatted}`,
          hideCursor: true,
          clearOnComplete: true,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      );
      bar.start(Math.max(totalBytes, 1), 0, payload(reader()));
      timer = setInterval(() => {
        const s = reader();
        bar?.update(s.bytes, payload(s));
      }, 200);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      if (bar && read) {
        const s = read();
        bar.update(s.bytes, payload(s));
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
        const share = totalBytes > 0 ? Math.floor((100 * s.bytes) / totalBytes) : 100;
        stream.write(
          `${label}: ${s.written.toLocaleString('en-US')} rows written (${share}% of the file), ` +
            `${rate(s.written, Date.now() - started)} rows/s, ${s.transactions.toLocaleString('en-US')} transactions\n`,
        );
      }, everyMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
    },
  };
}

function rate(rows: number, ms: number): string {
  return ms > 0 ? Math.round((rows * 1000) / ms).toLocaleString('en-US') : '0';
}
