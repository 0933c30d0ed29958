// Why a bulk run stops sending, and what it tells the rows it did not send: the messages of each
// stop reason, and the rules by which one answer stops the run (learn: the key refused, a wrong base
// URL, the allowance gone, the service failing request after request). Apart from the Sender
// because they are the run's policy, not its mechanism: the Sender applies them, once per answer.

import type { Outcome, StopReason } from '@enrich/core';

export const ABANDONED = 'abandoned when the run was interrupted: the service may have been paid for it';

/**
 * What the row of a request sent whole but never answered (core's `unanswered`: the deadline
 * passed, or the connection was lost while waiting) adds to core's "may have been paid" message:
 * how to ask again. It is not journaled (no answer arrived), so a rerun asks again, as for a
 * request abandoned at Ctrl-C.
 */
export const ASK_AGAIN_UNANSWERED =
  'A rerun asks for it again (one more transaction if the service billed this one); a longer timeout may help if the service is slow.';

export const INTERRUPTED = 'not sent: the run was interrupted';

export const ALLOWANCE_GONE = 'not sent: the transaction allowance is used up (429); run again later';

export function budgetSpent(maxTransactions: number): string {
  return `not sent: the transaction budget (--max-transactions ${maxTransactions}) is spent`;
}

export function waitTooLong(pause: number, maxRetryAfterMs: number, resumeAt: number): string {
  return `not sent: the service asked to wait ${waitText(pause)} (Retry-After), longer than the ${waitText(maxRetryAfterMs)} this run waits; run again after ${new Date(resumeAt).toISOString()}`;
}

function waitText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  return `${(s / 3600).toFixed(1)} h`;
}

/** An `unanswered` error with how to ask again; any other outcome as it is. */
export function withAskAgain(outcome: Outcome): Outcome {
  if (outcome.kind !== 'error' || outcome.error.code !== 'unanswered') return outcome;
  return {
    kind: 'error',
    error: { ...outcome.error, message: `${outcome.error.message} ${ASK_AGAIN_UNANSWERED}` },
  };
}

/** What the lessons read of the sender's options (`now` called as a method, as the Sender does). */
interface LessonOptions {
  readonly now: () => number;
  /** Consecutive requests that end in a server or network error before the run stops sending. */
  readonly failureLimit?: number;
}

/** What the answers so far say about the requests still to send: when to stop. */
export class Lessons {
  private lastAnswerAt = Number.NEGATIVE_INFINITY;
  private failuresInARow = 0;

  constructor(
    private readonly options: LessonOptions,
    private readonly stop: (reason: StopReason, message: string) => void,
  ) {}

  // What one answer says about the requests still to send.
  learn(outcome: Outcome, paid: boolean, firstSentAt: number): void {
    if (paid) {
      this.lastAnswerAt = this.options.now();
      this.failuresInARow = 0;
      return;
    }
    if (outcome.kind !== 'error') return;
    switch (outcome.error.code) {
      case 'unauthorized':
        this.stop('auth', 'not sent: the API key was refused (401)');
        break;
      case 'redirect':
        // Every request would be redirected the same way; a wrong base URL, most likely.
        this.stop('service', `not sent: ${outcome.error.message}`);
        break;
      case 'allowance':
        // A 429 that outlasted every retry while no other request got an answer: the allowance
        // is gone, not busy. (If others were answered meanwhile, only this row is marked.)
        if (this.lastAnswerAt < firstSentAt) this.stop('allowance', ALLOWANCE_GONE);
        break;
      case 'server':
      case 'network':
      case 'unanswered':
      case 'unexpected-status': {
        this.failuresInARow++;
        const limit = this.options.failureLimit ?? 20;
        if (this.failuresInARow >= limit) {
          this.stop('service', `not sent: the service failed ${limit} requests in a row; run again later`);
        }
        break;
      }
      default:
        break;
    }
  }
}
