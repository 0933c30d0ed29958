// A wait that a signal cuts short: a retry's backoff or a pace's spacing must never outlast a
// cancel (Ctrl-C, Stop). It uses timers, so it is in the SDK's entry, not the universal one (Apps
// Script has no setTimeout).

/**
 * Waits `ms`, or until `signal` aborts, whichever comes first; never rejects. With `sleep`, that
 * wait is the caller's (a test's clock, say) and only the abort is added; without it, a timer,
 * cleared on abort so that it never holds the process.
 */
export function abortableSleep(
  ms: number,
  signal?: AbortSignal,
  sleep?: (ms: number) => Promise<void>,
): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    signal?.addEventListener('abort', done, { once: true });
    if (sleep) sleep(ms).then(done, done);
    else timer = setTimeout(done, ms);
  });
}
