// The pace a bulk run reached, as its summary reports it. Apart from the Sender because it is read
// once, at the end of a run, from what the Sender shows; it takes that shape, not the class, so
// that it imports nothing of sender.ts (which re-exports it).

import type { Pace, PaceChange, PaceReading } from '@enrich/core';

/** The pace a run reached, for its summary. */
export interface PaceSummary {
  /** Answers (other than 429) per second, from the first request to the last answer. */
  readonly answersPerSecond: number;
  /** 'auto' when the controller found the pace, else the number the user fixed. */
  readonly mode: 'auto' | 'fixed';
  /** Where it stood at the end: the limit in flight and the rate (if paced by one). */
  readonly concurrency: number;
  readonly ratePerSecond: number | undefined;
  /** Why it last changed (core's PACE_CHANGES). */
  readonly change: PaceChange;
  /** The limit of the last run's pace it started from, if it did (core's remembered-pace.ts). */
  readonly startedFrom?: number | undefined;
}

/** What the summary reads of a Sender. */
interface PacedSender {
  readonly pace: Pace;
  readonly answersPerSecond: number;
  readonly startedFrom: number | undefined;
  reading(): PaceReading;
}

export function paceSummary(sender: PacedSender): PaceSummary {
  const reading = sender.reading();
  return {
    answersPerSecond: Math.round(sender.answersPerSecond * 10) / 10,
    mode: sender.pace.isFixed ? 'fixed' : 'auto',
    concurrency: reading.concurrency,
    ratePerSecond:
      reading.ratePerSecond === undefined ? undefined : Math.round(reading.ratePerSecond * 10) / 10,
    change: reading.change,
    ...(sender.startedFrom === undefined ? {} : { startedFrom: sender.startedFrom }),
  };
}
