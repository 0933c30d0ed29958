// The requests of a run on their way: queued for the sender, on the wire, their answers journaled
// the moment they arrive. A request's rows wait on its slot (window.ts's Pending) until answered.
import type { CleanInput } from '@enrich/core';
import type { AnswerStore } from './answer-store.js';
import { RequestQueue } from './request-queue.js';
import type { RowResult } from './row-result.js';
import type { Sender, SendResult } from './sender.js';
import type { Pending } from './window.js';

interface Queued {
  readonly key: string;
  readonly input: CleanInput;
  readonly slot: Pending<RowResult>;
}

export class RunRequests {
  /** Requests waiting for their answer (queued or on the wire), by key. */
  readonly pending = new Map<string, Pending<RowResult>>();
  private readonly tasks = new Set<Promise<void>>();
  // Requests handed to the sender whose answers have not arrived: twice its concurrency, so that its
  // own queue has the next request ready when a slot frees. An answer waiting for the journal's
  // sync no longer counts (counting it made a slow sync hold back sending).
  private onTheWay = 0;
  private readonly queue: RequestQueue<Queued>;

  constructor(
    private readonly sender: Sender,
    private readonly store: AnswerStore,
    private readonly answered: (key: string, slot: Pending<RowResult>, sent: SendResult) => void,
    private readonly failed: (error: unknown) => void,
  ) {
    this.queue = new RequestQueue<Queued>(
      () => this.onTheWay < sender.maxInFlight * 2,
      (queued) => this.send(queued),
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

  private send({ key, input, slot }: Queued): void {
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
    // Journal first: once the answer is durably on disk, no later run pays for it again. A row
    // whose answer is not durable is not done (and the run stops: see saveUnsaved). The line is
    // written before the next request is handed over (put() writes before it first awaits).
    const task = this.sender
      .send(input, (outcome) => {
        const kept = this.store.put(key, outcome);
        answerArrived();
        return kept;
      })
      .then((sent) => this.answered(key, slot, sent))
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
