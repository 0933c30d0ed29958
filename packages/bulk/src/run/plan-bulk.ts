// The cost of a run before anything is sent (the CLI's --dry-run, the extension's confirmation):
// rows, distinct valid requests, answers already cached, transactions to spend; from the file and
// the answer cache alone (and the shared answer store, when there is one: what another client or
// instance bought is free, so it is not counted as to spend). Sends nothing, needs no key, and
// changes no file; the shared store is only read (no claim).
import type { CsvLayout } from '../formats/csv-layout.js';
import type { FileKind } from '../formats/file-kind.js';
import { openSource } from '../formats/open-source.js';
import type { RowSource } from '../formats/row-source.js';
import { AnswerStore } from '../store/answer-store.js';
import type { StoreFront } from '../store/store-front.js';
import type { FileOptions } from './bulk-options.js';
import { mapInput, rowPlanner } from './row-planner.js';
import { isUnreadable } from './row-result.js';
import { fileWiring } from './run-wiring.js';
import { INVALID_EXAMPLES, type InvalidExample } from './summary.js';

/** Keys looked up in the shared store at once: one query each batch. */
const STORE_BATCH = 500;

/** A plan's options: a run's files, operation, service and budget (bulk-options.ts). */
export type PlanOptions = FileOptions;

export interface BulkPlan {
  readonly operation: string;
  readonly input: string;
  readonly cache: string;
  /** Which input column feeds each field. */
  readonly mapping: Readonly<Record<string, string>>;
  rows: number;
  blank: number;
  invalid: number;
  invalidExamples: InvalidExample[];
  distinct: number;
  /** Distinct requests with a fresh answer in the cache. */
  cached: number;
  /** Of those, answers paid for but unreadable (asked again, and paid again, with --retry-unreadable). */
  unreadable: number;
  /** The shared answer store (where it is, no password), if the run has one. */
  readonly store: string | undefined;
  /** Distinct requests not in the cache but in the shared store: free (bought by another client). */
  inStore: number;
  /** Transactions the run would spend: distinct requests not cached, capped by the budget. */
  transactions: number;
  /** How a CSV input is written (encoding, separator): the output keeps it, in UTF-8. */
  readonly layout: CsvLayout | undefined;
  readonly inputKind: FileKind;
  /** What was found in the input, in words ("JSON Lines (UTF-8)", a CSV's layout, the sheet). */
  readonly found: string;
}

export async function planBulk(options: PlanOptions): Promise<BulkPlan> {
  const { op } = options;
  const wiring = fileWiring(options);
  const input = await openSource(options.inPath, options.layout);
  let mapped: ReturnType<typeof mapInput>;
  let plan: RowPlan;
  let cache: AnswerStore;
  try {
    mapped = mapInput(op, options.inPath, input.header, wiring.overrides);
    plan = rowPlanner(op, input.header, mapped, options.refuse);
    cache = AnswerStore.open({
      path: options.cachePath,
      namespace: wiring.namespace,
      maxAgeMs: wiring.maxAgeMs,
      readOnly: true,
      now: wiring.now,
    });
  } catch (error) {
    // Nothing was read past the header: the input is let go of before saying why.
    input.close();
    throw error;
  }
  const summary = emptyPlan(options, input, mapped.fields);
  try {
    await countRows(input, plan, summary, cache, options.sharedStore);
  } finally {
    input.close();
    cache.close();
  }
  const free = summary.cached + summary.inStore;
  const toSpend = summary.distinct - free + (options.retryUnreadable ? summary.unreadable : 0);
  summary.transactions =
    options.maxTransactions === undefined ? toSpend : Math.min(toSpend, options.maxTransactions);
  return summary;
}

type RowPlan = ReturnType<typeof rowPlanner>;

/** The plan before any row is read: what the run is, and every count at zero. */
function emptyPlan(
  options: PlanOptions,
  input: RowSource,
  fields: Readonly<Record<string, number>>,
): BulkPlan {
  const mapping: Record<string, string> = {};
  for (const [field, index] of Object.entries(fields)) mapping[field] = input.header[index] ?? '';
  return {
    operation: options.op.id,
    input: (options.display ?? String)(options.inPath),
    cache: (options.display ?? String)(options.cachePath),
    mapping,
    layout: input.layout,
    inputKind: input.kind,
    found: input.found,
    rows: 0,
    blank: 0,
    invalid: 0,
    invalidExamples: [],
    distinct: 0,
    cached: 0,
    unreadable: 0,
    store: options.sharedStore?.where,
    inStore: 0,
    transactions: 0,
  };
}

/** Reads every row and counts it into `summary`: blank, invalid, or a request (new or seen, and where its answer is). */
async function countRows(
  input: RowSource,
  plan: RowPlan,
  summary: BulkPlan,
  cache: AnswerStore,
  front: StoreFront | undefined,
): Promise<void> {
  const seen = new Set<string>();
  // (An answer of the store's is used as it is, unreadable or not: a run claims it, not buys it.)
  const lookUp = storeLookup(front, () => {
    summary.inStore++;
  });
  for (;;) {
    const batch = await input.nextBatch();
    if (!batch) break;
    for (let i = 0; i < batch.records.length; i++) {
      summary.rows++;
      const planned = plan(batch.records[i] as string[]);
      if (planned.kind === 'request') {
        if (seen.has(planned.key)) continue;
        seen.add(planned.key);
        summary.distinct++;
        const stored = cache.get(planned.key);
        if (stored) {
          summary.cached++;
          if (isUnreadable(stored)) summary.unreadable++;
          continue;
        }
        const lookingUp = lookUp.add(planned.key);
        if (lookingUp) await lookingUp;
        continue;
      }
      summary.invalid++;
      if (planned.kind === 'blank') summary.blank++;
      else if (summary.invalidExamples.length < INVALID_EXAMPLES) {
        summary.invalidExamples.push({ row: batch.firstRow + i, message: planned.message });
      }
    }
  }
  await lookUp.flush();
}

/** Keys looked up in the shared store in batches (getMany), each answer found told to `found`. */
function storeLookup(front: StoreFront | undefined, found: () => void) {
  let keys: string[] = [];
  const flush = async () => {
    if (!front || keys.length === 0) return;
    const batch = keys;
    keys = [];
    for (let n = (await front.getMany(batch)).size; n > 0; n--) found();
  };
  return {
    flush,
    add(key: string): Promise<void> | undefined {
      if (!front) return undefined;
      keys.push(key);
      return keys.length >= STORE_BATCH ? flush() : undefined;
    },
  };
}
