// The requests of a run on their way: queued for the sender, on the wire, their answers journaled
// the moment they arrive. A request's rows wait on its slot (window.ts's Pending) until answered.
// With a shared answer store (store-claims.ts), each request is claimed there before it is sent.
import type { CleanInput, Outcome } from '@enrich/core';
import { RequestQueue } from '../sending/request-queue.js';
import type { Sender, SendResult } from '../sending/sender.js';
import type { AnswerStore } from '../store/answer-store.js';
import type { StoreClaims } from '../store/store-claims.js';
import type { RowResult } from './row-result.js';
import type { Pending } from './window.js';

interface Queued {
  readonly key: string;
  readonly input: CleanInput;
  readonly slot: Pending<RowResult>;
}

/** A request's answer: the sender's, or one someone else kept in the shared store (not paid). */
export type RequestAnswer =
  | SendResult
  | {
      readonly sent: true;
      readonly outcome: Outcome;
      readonly paid: false;
      /** Whether the local journal keeps it too (it is durable in the shared store either way). */
      readonly kept: boolean;
      readonly fromStore: true;
    };

/**
 * A claim is one quick question to the store; one that has not answered in this long waits for
 * another holder's purchase (another instance, which may be slow), and no longer takes a place from
 * the requests behind it: they are claimed and sent meanwhile.
 */
const CLAIM_WAITS_AFTER_MS = 200;

export class RunRequests {
  /** Requests waiting for their answer (queued, claimed or on the wire), by key. */
  readonly pending = new Map<string, Pending<RowResult>>();
  private readonly tasks = new Set<Promise<void>>();
  // Requests handed to the sender whose answers have not arrived: twice its concurrency, so that its
  // own queue has the next request ready when a slot frees. An answer waiting for the journal's
  // sync no longer counts (counting it made a slow sync hold back sending).
  private onTheWay = 0;
  // Claims asked of the shared store, not answered yet and not yet known to wait for another holder.
  private claiming = 0;
  private readonly queue: RequestQueue<Queued>;

  constructor(
    private readonly sender: Sender,
    private readonly store: AnswerStore,
    shared: StoreClaims | undefined,
    private readonly answered: (key: string, slot: Pending<RowResult>, answer: RequestAnswer) => void,
    private readonly failed: (error: unknown) => void,
  ) {
    this.queue = new RequestQueue<Queued>(
      () => this.onTheWay + this.claiming < sender.maxInFlight * 2,
      (queued) => (shared ? this.claim(queued, shared) : this.send(queued, undefined)),
    );
  }

  /** Whether answers are still to come. */
  get onTheirWay(): boolean {
    return this.tasks.size > 0;
  }

  /** A new request: queued for the sender; its slot is what its rows wait for. */
  ask(key: string, input: CleanInput): Pending<RowResult> {
    const slot: Pending<RowResult> = { result: undefined };
    this.pending.set(key, slot);
    this.queue.push({ key, input, slot });
    return slot;
  }

  /** Waits for every request handed to the sender (abandoned ones settle at once). */
  async settle(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all([...this.tasks]);
  }

  // The shared store first: its answer (journaled here too), or the right to buy it, or not sent.
  private claim(queued: Queued, shared: StoreClaims): void {
    this.claiming++;
    let quick = true;
    const done = () => {
      if (!quick) return;
      quick = false;
      this.claiming--;
      this.queue.startWhatFits();
    };
    const waits = setTimeout(done, CLAIM_WAITS_AFTER_MS);
    const claimed = shared.claim(queued.key).finally(() => {
      clearTimeout(waits);
      done();
    });
    const task = claimed
      .then(async (claim) => {
        if (claim.kind === 'refused')
          return this.answered(queued.key, queued.slot, { sent: false, reason: claim.reason });
        if (claim.kind !== 'answer') return this.send(queued, claim.kind === 'buy' ? shared : undefined);
        const kept = await this.store.put(queued.key, claim.outcome);
        const answer = { sent: true, outcome: claim.outcome, paid: false, kept, fromStore: true } as const;
        this.answered(queued.key, queued.slot, answer);
      })
      .catch(this.failed)
      .finally(() => this.tasks.delete(task));
    this.tasks.add(task);
  }

  // `bought`: the shared store where this request is claimed and its transaction reserved.
  private send({ key, input, slot }: Queued, bought: StoreClaims | undefined): void {
    this.onTheWay++;
    let arrived = false;
    const answerArrived = () => {
      if (arrived) return;
      arrived = true;
      this.onTheWay--;
      this.queue.startWhatFits();
      // Nothing more on the way (the last answers of the run, or of a pause): sync them now.
      if (this.onTheWay === 0) this.store.syncSoon();
    };
    let keptInStore: Promise<void> | undefined;
    // Journal first: once the answer is durably on disk, no later run pays for it again. A row
    // whose answer is not durable is not done (and the run stops: see saveUnsaved). The line is
    // written before the next request is handed over (put() writes before it first awaits). A
    // bought answer goes to the shared store at the same moment; its row waits for both.
    const task = this.sender
      .send(input, (outcome) => {
        keptInStore = bought?.put(key, outcome);
        const kept = this.store.put(key, outcome);
        answerArrived();
        return kept;
      })
      .then((sent) =>
        bought
          ? bought.settle(key, sent, keptInStore).then(() => this.answered(key, slot, sent))
          : this.answered(key, slot, sent),
      )
      // A failure of ours (the cache file cannot be written, say) ends the run: nothing more is
      // sent, and what is on the wire is still awaited (and journaled) by settle().
      .catch(this.failed)
      .finally(() => {
        this.tasks.delete(task);
        answerArrived();
      });
    this.tasks.add(task);
  }
}
