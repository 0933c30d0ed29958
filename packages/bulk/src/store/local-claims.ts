// Claims within one process: the first caller of a key holds it until its put or release; every
// other caller of the same key in this process waits for that, then asks again (and finds the answer,
// or takes the claim when nothing was kept). Both fronts use it: the journal's claims are only these;
// PostgreSQL's take one of these before they ask the database, so a process asks it once per key.

/** Aborts the wait with the signal's reason. */
function untilAborted(signal: AbortSignal): { promise: Promise<never>; forget: () => void } {
  let forget = () => {};
  const promise = new Promise<never>((_, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    forget = () => signal.removeEventListener('abort', onAbort);
  });
  return { promise, forget };
}

/** `waiting`, or a rejection as soon as `signal` aborts. */
export async function orAborted<T>(waiting: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return waiting;
  signal.throwIfAborted();
  const aborted = untilAborted(signal);
  try {
    return await Promise.race([waiting, aborted.promise]);
  } finally {
    aborted.forget();
  }
}

export class LocalClaims {
  private readonly held = new Map<string, { ended: Promise<void>; end: () => void }>();

  /** Takes the key and returns undefined when it is free; else a promise settled when its holder ends. */
  take(key: string): Promise<void> | undefined {
    const holder = this.held.get(key);
    if (holder) return holder.ended;
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.held.set(key, { ended, end });
    return undefined;
  }

  holds(key: string): boolean {
    return this.held.has(key);
  }

  /** The keys held now (PostgreSQL renews their claims in the database). */
  keys(): string[] {
    return [...this.held.keys()];
  }

  /** Ends the key's claim: its waiters ask again. */
  end(key: string): void {
    const holder = this.held.get(key);
    if (!holder) return;
    this.held.delete(key);
    holder.end();
  }

  /** Ends every claim (the front closes): waiters ask again and meet the closed front. */
  endAll(): void {
    for (const key of this.keys()) this.end(key);
  }
}
