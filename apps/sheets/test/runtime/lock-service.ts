// The fake LockService (services.ts holds the limits and costs the fakes share).
import { type Execution, LockWait } from './execution.js';
import { SERVICE_COSTS } from './services.js';

// ---------------------------------------------------------------------------------------------
// LockService: a lock is free unless another execution holds it. Executions run one at a time,
// except those started together (run-concurrently.ts), where a busy tryLock waits for the holder.

export function createLockService(exec: Execution, held: Map<string, Execution>, refused = () => false) {
  const lock = (name: string) => {
    const take = () => {
      if (refused()) return false;
      const owner = held.get(name);
      if (owner && owner !== exec) return false;
      held.set(name, exec);
      exec.locks.add(name);
      return true;
    };
    return {
      tryLock: (ms: number) => {
        exec.enter(SERVICE_COSTS.lock);
        exec.calls.push('lock');
        if (take()) {
          exec.lockWaitStart = null;
          return true;
        }
        // Executions running at once: wait (let the holder go on) until the timeout, then give up.
        if (exec.concurrent && !refused()) {
          const now = exec.clock.now();
          exec.lockWaitStart ??= now;
          if (now - exec.lockWaitStart < Number(ms))
            throw new LockWait(name, exec.lockWaitStart + Number(ms));
          exec.lockWaitStart = null;
        }
        return false;
      },
      waitLock: (_ms: number) => {
        exec.enter(SERVICE_COSTS.lock);
        exec.calls.push('lock');
        if (!take())
          throw exec.realm.error('Lock timeout: another process was holding the lock for too long.');
      },
      hasLock: () => held.get(name) === exec,
      releaseLock: () => {
        if (held.get(name) === exec) held.delete(name);
        exec.locks.delete(name);
      },
    };
  };
  const allow = (what: string) => exec.allow(`LockService.${what}`, { custom: true });
  return {
    getDocumentLock: () => {
      allow('getDocumentLock');
      if (exec.noDocument) return null;
      return lock('document');
    },
    getUserLock: () => {
      allow('getUserLock');
      return lock(`user:${exec.user.email}`);
    },
    getScriptLock: () => {
      allow('getScriptLock');
      return lock('script');
    },
  };
}
