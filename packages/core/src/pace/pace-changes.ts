// Why the pace last changed, in the words every client shows beside the current rate
// ("slower: the service answered 429"). One table, so that the CLI, VS Code and Sheets say it alike.

export type PaceChange =
  | 'start'
  | 'remembered'
  | 'fixed'
  | 'faster'
  | 'neighbour-ended'
  | 'capped'
  | 'slower-throttled'
  | 'slower-queueing'
  | 'slower-failing'
  | 'paused';

export const PACE_CHANGES: Readonly<Record<PaceChange, string>> = {
  start: 'starting small, to find the pace the service allows',
  remembered: 'starting from the pace of the last run against this service',
  fixed: 'a fixed number at a time, as set',
  faster: 'faster: answers keep coming in the same time',
  'neighbour-ended': 'faster: another run on this service and key ended, and its pace was taken up',
  capped: 'held at the maximum rate you set',
  'slower-throttled': 'slower: the service answered 429',
  'slower-queueing': 'slower: answers are taking longer (the service is queueing)',
  'slower-failing': 'slower: the service failed or timed out',
  paused: 'paused: the service refused every request (429)',
};

/** What a progress line says of the pace: "48/s, 15 in flight, paced at 49/s (slower: the service answered 429)". */
export function paceText(reading: {
  readonly answersPerSecond: number;
  readonly inFlight: number;
  readonly ratePerSecond: number | undefined;
  readonly change: PaceChange;
}): string {
  const paced = reading.ratePerSecond === undefined ? '' : `, paced at ${perSecond(reading.ratePerSecond)}`;
  return `${perSecond(reading.answersPerSecond)}, ${reading.inFlight} in flight${paced} (${PACE_CHANGES[reading.change]})`;
}

function perSecond(value: number): string {
  return `${value >= 10 ? Math.round(value) : Math.round(value * 10) / 10}/s`;
}

/**
 * What a summary says of the pace a run reached: "48.7 answers/s; found by itself: up to 51 at a
 * time, 49.4 requests/s at the end", and "; started from the pace of the last run: 64 at a time"
 * when it did (remembered-pace.ts).
 */
export function paceReachedText(pace: {
  readonly answersPerSecond: number;
  readonly mode: 'auto' | 'fixed';
  readonly concurrency: number;
  readonly ratePerSecond: number | undefined;
  readonly startedFrom?: number | undefined;
}): string {
  const held =
    pace.mode === 'fixed'
      ? `${pace.concurrency} at a time (fixed)`
      : `found by itself: up to ${pace.concurrency} at a time`;
  const rate = pace.ratePerSecond === undefined ? '' : `, ${pace.ratePerSecond} requests/s`;
  const started =
    pace.startedFrom === undefined
      ? ''
      : `; started from the pace of the last run: ${pace.startedFrom} at a time`;
  return `${pace.answersPerSecond} answers/s; ${held}${rate} at the end${started}`;
}

/** "12 (0.8 % of requests sent)": the 429 answers of a run. */
export function throttledText(throttled: number, attempts: number): string {
  const share = attempts > 0 ? ((100 * throttled) / attempts).toFixed(1) : '0';
  return `${throttled} (${share} % of requests sent)`;
}
