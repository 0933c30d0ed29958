// One request on its way, and the callers waiting for it (purchase.ts shares it through core's
// SharedRequests). Each caller takes a seat with its own cancellation: a caller that cancels leaves
// at once, and the request itself is stopped only when every caller waiting for it has left; so
// one chat call cancelled among five of the same input does not take the answer from the other four.

export interface Seat {
  /** Resolves when this caller cancelled (and so stopped waiting). */
  readonly left: Promise<'left'>;
  /** Gives the seat up (the caller has its answer, or has left). */
  dispose(): void;
}

export class Flight {
  private readonly stop = new AbortController();
  /** Aborted when every caller waiting has cancelled: the request in flight is cut. */
  readonly signal = this.stop.signal;
  private seated = 0;
  private readonly retryListeners = new Set<(message: string) => void>();
  private done: () => void = () => {};
  /** Resolves when the purchase has ended (answered, recorded, or stopped). */
  readonly ended = new Promise<void>((resolve) => {
    this.done = resolve;
  });

  /** True once every caller left: the request is being stopped, not to be joined. */
  get abandoned(): boolean {
    return this.signal.aborted;
  }

  /** A caller waits for this request, until its `signal` aborts; told of retries by `onRetry`. */
  join(signal: AbortSignal, onRetry?: (message: string) => void): Seat {
    this.seated++;
    if (onRetry) this.retryListeners.add(onRetry);
    let seated = true;
    let leave: (value: 'left') => void = () => {};
    const left = new Promise<'left'>((resolve) => {
      leave = resolve;
    });
    const standUp = () => {
      if (!seated) return false;
      seated = false;
      this.seated--;
      if (onRetry) this.retryListeners.delete(onRetry);
      return true;
    };
    const onAbort = () => {
      if (!standUp()) return;
      if (this.seated === 0) this.stop.abort();
      leave('left');
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    return {
      left,
      dispose: () => {
        signal.removeEventListener('abort', onAbort);
        standUp();
      },
    };
  }

  /** "retrying in 2 s (attempt 2)", to every caller still waiting. */
  retrying(message: string): void {
    for (const listener of this.retryListeners) listener(message);
  }

  end(): void {
    this.done();
  }
}
