// Mutation testing (`pnpm mutate`, StrykerJS) through the runtime. Stryker builds the add-on from
// mutated sources, every mutant in one bundle, each guarded by a test of which mutant is on; the
// bundle reads that from a global object, `__stryker__`, and writes there which mutants it ran (per
// test: the coverage that decides which tests each mutant is tried against). An execution runs in a
// vm context of its own, or in a thread (execution-worker.mjs): without this bridge it would see no
// mutant on and report nothing. Outside `pnpm mutate` there is no such global and nothing here acts.

interface StrykerGlobal {
  activeMutant?: string;
  currentTestId?: string;
  mutantCoverage?: Coverage;
}

/** Which mutants ran how often: outside any test, and by test. */
export interface Coverage {
  static: Record<string, number>;
  perTest: Record<string, Record<string, number>>;
}

const host = (): StrykerGlobal | undefined => (globalThis as { __stryker__?: StrykerGlobal }).__stryker__;

/** Gives an execution's context the test's own Stryker global (same thread: one object). */
export function shareWithContext(context: Record<string, unknown>): void {
  const stryker = host();
  if (stryker !== undefined) context.__stryker__ = stryker;
}

/** What a thread needs to know: the mutant on and the test running; undefined outside `pnpm mutate`. */
export function forThread(): { activeMutant?: string; currentTestId?: string } | undefined {
  const stryker = host();
  if (stryker === undefined) return undefined;
  return { activeMutant: stryker.activeMutant, currentTestId: stryker.currentTestId };
}

/** Adds what a thread's execution ran to the test's coverage. */
export function addThreadCoverage(coverage: Coverage | undefined): void {
  const stryker = host();
  if (stryker === undefined || coverage === undefined) return;
  stryker.mutantCoverage ??= { static: {}, perTest: {} };
  const into = stryker.mutantCoverage;
  add(into.static, coverage.static);
  for (const [test, counts] of Object.entries(coverage.perTest)) {
    into.perTest[test] ??= {};
    add(into.perTest[test], counts);
  }
}

function add(into: Record<string, number>, counts: Record<string, number>): void {
  for (const [id, count] of Object.entries(counts)) into[id] = (into[id] ?? 0) + count;
}
