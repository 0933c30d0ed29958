// Every call the extension pays for, the palette's (and the History's Re-run, Retry, Ask again) and
// the chat tools', goes through Purchases.buy: the purchase path's steps (DESIGN "One purchase
// path"), each a named method, as the MCP server's purchase.ts:
//   fromStore  an answer the History holds (free), where the order allows one;
//   ceiling    what the person agreed to: an answer confirmed free is given from the History or not
//              at all; a paid call goes only where, and with the key, it was agreed to (target.ts);
//   share      a request of the same service and request key already on its way is waited for, not
//              sent again (core's SharedRequests): five chat calls of one input at once buy it once,
//              a palette call and a chat call too;
//   send       core's callOperation over the fetch transport, with its retries, cut when every
//              caller waiting for it cancelled (flight.ts);
//   record     the History entry and the spend ledger's line before anyone is told, including a call
//              cancelled on its way, as "may have been paid" (wire-watch.ts).
// The input was checked before (the quick input, the chat tool's plan). What the person is told is
// the caller's: call/send.ts for the palette, chat/tools.ts for the chat tools.
import {
  abortableSleep,
  type CallReport,
  type CleanInput,
  callError,
  callOperation,
  isPaid,
  type Operation,
  type Outcome,
  redactRequest,
  requestKey,
  type Shared,
  SharedRequests,
} from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import type { Config } from '../config';
import { type History, type HistoryEntry, mayHaveBeenPaid, newEntryId } from '../history';
import type { Log } from '../log';
import type { Privacy } from '../privacy/suppression';
import type { SpendLedger } from '../spend/ledger';
import { findEarlierAnswer } from './earlier-answer';
import { Flight } from './flight';
import { statusText } from './status-text';
import { type Target, targetChange, targetOf } from './target';
import { WireWatch } from './wire-watch';

export interface PurchaseDeps {
  readonly config: Config;
  readonly history: History;
  readonly spend: SpendLedger;
  readonly log: Log;
  /** The key calls use now (the trial's demo key while trying without a key). */
  readonly apiKey: () => Promise<string | undefined>;
  /** People forgotten at their request: refused before the History or the service (issue 38). */
  readonly privacy?: Pick<Privacy, 'refusal'>;
}

/** An answer the person was told comes free from the History: given from there, never bought. */
export interface FreeOrder {
  readonly kind: 'free';
  readonly op: Operation;
  readonly input: CleanInput;
  /** The History entry the confirmation offered. */
  readonly earlier: HistoryEntry;
}

/** A call the person agreed to pay for (one transaction at most), sent to `target` only. */
export interface PaidOrder {
  readonly kind: 'paid';
  readonly op: Operation;
  readonly input: CleanInput;
  readonly target: Target;
  /** Whether an answer the History holds may stand in, free (not when the person asked to call again). */
  readonly fromHistory: boolean;
}

export type Order = FreeOrder | PaidOrder;

export interface Control {
  /** This caller cancelled. */
  readonly signal: AbortSignal;
  /** "retrying in 2 s (attempt 2)". */
  readonly onRetry?: (message: string) => void;
}

export type Bought =
  /** Answered from the History: nothing sent, nothing spent. */
  | { readonly kind: 'from-history'; readonly entry: HistoryEntry }
  /** Answered by a request: this caller's (`shared` false), or one already on its way (free to it). */
  | { readonly kind: 'bought'; readonly entry: HistoryEntry; readonly shared: boolean }
  /** Nothing sent, for `reason`, said in `message`. */
  | {
      readonly kind: 'refused';
      readonly reason: 'gone' | 'changed' | 'no-key' | 'not-allowed' | 'forgotten';
      readonly message: string;
    }
  /**
   * This caller cancelled. `entry`: the call was recorded, paid (its answer had arrived) or may have
   * been paid (it was on its way). Without one, nothing was spent: `onItsWay` when the same request
   * goes on for another caller, `sent` when earlier attempts had been answered without charge.
   */
  | {
      readonly kind: 'cancelled';
      readonly entry?: HistoryEntry;
      readonly onItsWay?: boolean;
      readonly sent?: boolean;
    };

/** What one request came to, for every caller that waited for it. */
type Made =
  | { readonly kind: 'entry'; readonly entry: HistoryEntry; readonly cancelled: boolean }
  | { readonly kind: 'not-sent'; readonly message: string }
  | { readonly kind: 'cancelled'; readonly sent: boolean };

export class Purchases {
  private readonly onTheirWay = new SharedRequests<Made>();
  /** The requests on their way, by the same key as onTheirWay: who waits for each. */
  private readonly flights = new Map<string, Flight>();

  constructor(private readonly deps: PurchaseDeps) {}

  async buy(order: Order, control: Control): Promise<Bought> {
    const forgotten = this.deps.privacy?.refusal(order.op, order.input);
    if (forgotten) return { kind: 'refused', reason: 'forgotten', message: `not sent: ${forgotten}` };
    if (order.kind === 'free') return this.confirmedAnswer(order);
    const stored = order.fromHistory ? this.fromStore({ ...order, url: order.target.url }) : undefined;
    if (stored) return { kind: 'from-history', entry: stored };
    const refused = await this.ceiling(order);
    if (refused) return refused;
    return this.share(order, control);
  }

  /** The answer a confirmation offered free, if the History still holds it (or another as good). */
  private confirmedAnswer(order: FreeOrder): Bought {
    const entry =
      this.deps.history.get(order.earlier.id) ??
      this.fromStore({ op: order.op, input: order.input, url: order.earlier.request.url });
    if (entry) return { kind: 'from-history', entry };
    return {
      kind: 'refused',
      reason: 'gone',
      message:
        'that answer is no longer in the History (cleared, deleted, or pushed out by enrich.historySize)',
    };
  }

  private fromStore(request: { op: Operation; input: CleanInput; url: string }): HistoryEntry | undefined {
    return findEarlierAnswer(this.deps.history.all(), request, Date.now(), this.deps.config.reuseAnswersMs);
  }

  /** The call goes where, and with the key, the person agreed to; else nothing is sent. */
  private async ceiling(order: PaidOrder): Promise<Bought | undefined> {
    const now = targetOf(order.op, this.deps.config.bases, await this.deps.apiKey());
    const change = targetChange(order.target, now);
    if (change === undefined) return undefined;
    this.deps.log.warn(`${order.op.title}: not sent: ${change}`);
    const reason = now.ok || order.target.bases.sandbox ? 'changed' : now.problem;
    return { kind: 'refused', reason, message: change };
  }

  /** One request per service and request key at a time; this caller waits for it, or leaves. */
  private async share(order: PaidOrder, control: Control): Promise<Bought> {
    if (control.signal.aborted) return { kind: 'cancelled', sent: false };
    const key = `${order.target.url}\n${requestKey(order.op, order.input)}`;
    // A request every caller has left is being stopped: let it end, then buy afresh.
    for (let ending = this.flights.get(key); ending?.abandoned; ending = this.flights.get(key)) {
      await ending.ended;
    }
    const purchase = this.onTheirWay.once(key, () => this.fly(key, order));
    const flight = this.flights.get(key);
    // Ended a moment ago: its answer is this caller's too.
    if (!flight) return bought(await purchase);
    const seat = flight.join(control.signal, control.onRetry);
    try {
      const first = await Promise.race([purchase, seat.left]);
      if (first !== 'left') return bought(first);
      // The last caller to leave stopped the request: its record says what it may have cost.
      if (flight.abandoned) return bought(await purchase);
      return { kind: 'cancelled', onItsWay: true };
    } finally {
      seat.dispose();
    }
  }

  // Registers its flight before anything else (SharedRequests calls this synchronously), so that
  // share() finds it at once.
  private fly(key: string, order: PaidOrder): Promise<Made> {
    const flight = new Flight();
    this.flights.set(key, flight);
    return this.send(order, flight).finally(() => {
      this.flights.delete(key);
      flight.end();
    });
  }

  private async send(order: PaidOrder, flight: Flight): Promise<Made> {
    const { op, input, target } = order;
    const { signal } = flight;
    const wire = new WireWatch(
      createFetchTransport({ timeoutMs: this.deps.config.requestTimeoutMs, signal }),
      signal,
    );
    const started = Date.now();
    const report = await callOperation(op, input, {
      transport: wire.send,
      settings: target.settings,
      now: Date.now,
      sleep: (ms) => abortableSleep(ms, signal),
      isCancelled: () => signal.aborted,
      onRetry: ({ attempt, delayMs, outcome }) => {
        const why = outcome.kind === 'error' ? outcome.error.message : '';
        this.deps.log.warn(`${op.title}: attempt ${attempt} failed (${why}); retrying in ${delayMs} ms`);
        flight.retrying(`retrying in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1})`);
      },
    });
    return this.record(order, report, { wire, started, cancelled: signal.aborted });
  }

  /** The History and the ledger learn what happened before any caller is told. */
  private async record(
    order: PaidOrder,
    report: CallReport,
    how: { readonly wire: WireWatch; readonly started: number; readonly cancelled: boolean },
  ): Promise<Made> {
    const { op, input, target } = order;
    const { log } = this.deps;
    if (!report.request) {
      const message = report.outcome.kind === 'error' ? report.outcome.error.message : 'Nothing was sent.';
      log.error(`${op.title}: ${message}`);
      return { kind: 'not-sent', message };
    }
    let outcome = report.outcome;
    if (
      how.cancelled &&
      !isPaid(outcome) &&
      outcome.kind === 'error' &&
      outcome.error.code !== 'unanswered'
    ) {
      if (!how.wire.cutByCancel) {
        log.info(`${op.title}: cancelled after ${Date.now() - how.started} ms; nothing was on its way`);
        return { kind: 'cancelled', sent: how.wire.started > 0 };
      }
      outcome = cancelledOnItsWay(report.request.url);
    }
    const entry: HistoryEntry = {
      ...(report.waitTooLong ? { resumeAt: report.waitTooLong.resumeAt } : {}),
      id: newEntryId(how.started),
      operationId: op.id,
      input,
      at: how.started,
      durationMs: Date.now() - how.started,
      attempts: report.attempts,
      outcome,
      paid: isPaid(outcome),
      request: redactRequest(report.request),
    };
    // A call that may have been paid is counted too: the ledger is checked against the invoice.
    if (entry.paid || mayHaveBeenPaid(entry)) this.deps.spend.recordCall(op, target.bases, entry.id);
    log.info(
      `${op.title} POST ${entry.request.url} -> ${statusText(entry)} in ${entry.durationMs} ms, ` +
        `${entry.attempts} attempt(s), transaction ${entry.paid ? 'spent' : mayHaveBeenPaid(entry) ? 'may have been spent' : 'not spent'}` +
        (how.cancelled ? ' (cancelled)' : ''),
    );
    if (report.waitTooLong) {
      log.warn(
        `${op.title}: the service asked to wait ${Math.round(report.waitTooLong.retryAfterMs / 1000)} s; ` +
          `not waited for. It said to try again after ${new Date(report.waitTooLong.resumeAt).toISOString()}`,
      );
    }
    await this.deps.history.add(entry);
    return { kind: 'entry', entry, cancelled: how.cancelled };
  }
}

function bought(shared: Shared<Made>): Bought {
  const made = shared.value;
  switch (made.kind) {
    case 'entry':
      return made.cancelled
        ? { kind: 'cancelled', entry: made.entry }
        : { kind: 'bought', entry: made.entry, shared: shared.shared };
    case 'not-sent':
      return { kind: 'refused', reason: 'not-allowed', message: made.message };
    case 'cancelled':
      return { kind: 'cancelled', sent: made.sent };
  }
}

/** Core's "may have been paid" (unanswered), for a request cut by a cancellation on its way. */
function cancelledOnItsWay(url: string): Outcome {
  const host = /^https?:\/\/([^/]+)/.exec(url)?.[1] ?? url;
  return {
    kind: 'error',
    error: callError(
      'unanswered',
      `May have been paid: the request was sent to ${host} and cancelled before its answer came. The service may have billed it, so it was not sent again.`,
    ),
  };
}
