// The time a run has left (issue 40). Rows answered from the answer cache are written at once, so
// a resumed run that counted them would promise "4 s" at 46 % and take 20: the pace is measured
// from the first transaction of this run on, over the rows written since, and the rows still to
// write are taken to need the service (on a resume, the cached ones are behind).

export interface TimeLeft {
  /** Milliseconds left, or undefined until a transaction has shown the service's pace. */
  update(written: number, transactions: number, totalRows: number): number | undefined;
  /** Rows written per second since the run started, for the progress line. */
  rowsPerSecond(written: number): number;
}

export function timeLeft(now: () => number): TimeLeft {
  const startedAt = now();
  let firstPaid: { at: number; written: number } | undefined;
  return {
    update(written, transactions, totalRows) {
      const at = now();
      if (transactions > 0) firstPaid ??= { at, written };
      if (!firstPaid) return undefined;
      const rows = written - firstPaid.written;
      const ms = at - firstPaid.at;
      if (rows <= 0 || ms <= 0) return undefined;
      return (Math.max(0, totalRows - written) * ms) / rows;
    },
    rowsPerSecond(written) {
      const ms = now() - startedAt;
      return ms > 0 ? (written * 1000) / ms : 0;
    },
  };
}
