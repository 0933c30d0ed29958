// The document lock, as every writer of shared state in this spreadsheet takes it: custom functions
// running at the same time (their in-flight marks, answers saved to the cache), sidebar chunks, and
// keeping answers in the hidden sheet. An execution that holds it already (a sidebar chunk saving
// its answers) goes on without taking it again, and does not release it.

/**
 * Runs `work` holding the document lock, waiting for it at most `waitMs`; returns undefined when
 * the lock could not be had (LockService refused it, or it stayed busy).
 */
export function underDocumentLock<T>(waitMs: number, work: () => T): { readonly value: T } | undefined {
  const lock = LockService.getDocumentLock();
  if (lock === null) return undefined;
  const held = lock.hasLock();
  if (!held && !lock.tryLock(waitMs)) return undefined;
  try {
    return { value: work() };
  } finally {
    if (!held) lock.releaseLock();
  }
}
