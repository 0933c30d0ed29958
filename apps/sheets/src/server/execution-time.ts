// How much of an execution's time is left, and whether a fetch round still fits in it. Apps Script
// stops an execution at its limit (30 s for a custom function, 6 minutes otherwise) wherever it is,
// and a round's requests are paid for when they are sent: a round that cannot end in time would buy
// answers the execution never keeps, and the next one would buy them again. So a round starts only
// if it still fits in what remains, with a margin for what comes after it (saving the answers,
// returning the rows), counting on a round taking up to twice the longest so far: answer times have
// a long tail, and a round lasts as long as its slowest answer.

/**
 * A round this execution has not timed yet is assumed to take this long: the first round of a
 * formula starts at once, but one that would start late (taking over from another formula that gave
 * up) needs this much time left. The API's answers take well under a second; this covers a slow day.
 */
export const UNTIMED_ROUND_MS = 10_000;
/** A round may take up to this many times the longest one so far. */
const ROUND_SAFETY = 2;

/** An execution's time (ms on the clock): when it stops, until when it may fetch, the rounds so far. */
export interface ExecutionTime {
  /** The platform stops the execution at this time. */
  readonly stopsAt: number;
  /** Fetching and waiting are over by this time: the limit less the margin. */
  readonly endBy: number;
  /** How long the next round may take: twice the longest so far, or UNTIMED_ROUND_MS before any. */
  expectedRoundMs(): number;
  /** Whether a round started at `at` would end in time. */
  roundFits(at?: number): boolean;
  roundTook(ms: number): void;
  /** The longest round timed so far (0 before any). */
  longestRoundMs(): number;
  /** How long a lock may be waited for now: at most `max`, never into the margin. */
  lockWaitMs(max: number): number;
}

/**
 * The time of an execution that started at `started` (ms), which the platform stops after `limitMs`
 * (30 s for a custom function, 6 minutes otherwise), keeping `marginMs` free at the end for what
 * follows the last round.
 */
export function executionTime(started: number, limitMs: number, marginMs: number): ExecutionTime {
  let longest = 0;
  let timed = 0;
  const stopsAt = started + limitMs;
  const endBy = stopsAt - marginMs;
  const expectedRoundMs = () => (timed === 0 ? UNTIMED_ROUND_MS : ROUND_SAFETY * longest);
  return {
    stopsAt,
    endBy,
    expectedRoundMs,
    roundFits: (at = Date.now()) => at + expectedRoundMs() <= endBy,
    roundTook(ms) {
      timed++;
      longest = Math.max(longest, ms);
    },
    longestRoundMs: () => longest,
    lockWaitMs: (max) => Math.max(0, Math.min(max, endBy - Date.now())),
  };
}

/** Apps Script stops any execution but a custom function or simple trigger after 6 minutes. */
export const EXECUTION_LIMIT_MS = 6 * 60_000;
