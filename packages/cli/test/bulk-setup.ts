// Shared by the bulk tests: one sandbox per test file (sandbox-per-file.ts) and its reserved inputs.
// The engine's own tests (runBulk called directly) are in packages/bulk/test.
import { RESERVED } from '@enrich/sandbox';

export { env, server, useSandbox } from './sandbox-per-file.js';

export const reserved = (outcome: string) => {
  const r = RESERVED.find((x) => x.outcome === outcome);
  if (!r) throw new Error(outcome);
  return r;
};
