// Where an "Enrich File" run reads, writes and remembers, and whose answers it may reuse: the same
// choices as the CLI's defaults (the bulk engine's own helpers), so the extension writes the same
// file as `enrich <op> --in <file>` and shares its answer cache: nothing is bought twice because
// the other client asked.
import {
  type Bases,
  BulkError,
  type BulkPlan,
  DEFAULT_MAX_AGE_MS,
  defaultCachePath,
  defaultOutputPath,
  planBulk,
  type SourceChoice,
} from '@enrich/bulk';
import { baseUrlOf, type Operation } from '@enrich/core';
import { serviceWords } from '../call/target';
import { Privacy } from '../privacy/suppression';
import { type FileFingerprint, fingerprint } from './file-fingerprint';

/** Every client's default maximum age (the default retention): older answers are asked again. */
export const MAX_AGE_MS = DEFAULT_MAX_AGE_MS;

export interface CsvRun {
  readonly op: Operation;
  readonly inPath: string;
  readonly outPath: string;
  readonly cachePath: string;
  /**
   * Where the run sends (the session's sandbox or not), read once when Enrich File started, with the
   * key: the engine names the cache namespace and the ledger's origin from them too (the session's
   * own sandbox is "sandbox" whatever its port, as the CLI's --sandbox).
   */
  readonly bases: Bases;
  /** API field -> input column, where the user changed the automatic mapping. */
  readonly overrides: Readonly<Record<string, string>>;
  /** A workbook's sheet the user picked; undefined: the engine reads the first (or the file is no workbook). */
  readonly sheet: string | undefined;
}

export function csvRun(
  bases: Bases,
  op: Operation,
  inPath: string,
  overrides: Readonly<Record<string, string>>,
  sheet?: string,
): CsvRun {
  // Beside the input, of its kind: leads.xlsx gives leads.phone-lookup.xlsx.
  const outPath = defaultOutputPath(inPath, op);
  return {
    op,
    inPath,
    outPath,
    cachePath: defaultCachePath(outPath),
    bases,
    overrides,
    sheet,
  };
}

/** "a local sandbox: http://127.0.0.1:8787", the base the run's operation is sent to, in words. */
export function runService(run: CsvRun): string {
  return serviceWords(run.bases, baseUrlOf(run.op, run.bases));
}

/** What the engine is told about reading the input: the sheet picked; a CSV's layout is found. */
export function sourceChoice(run: CsvRun): SourceChoice {
  return { sheet: run.sheet };
}

/** A plan, and the file it was made from (to refuse a run on a file changed since). */
export interface Planned {
  readonly plan: BulkPlan;
  readonly file: FileFingerprint;
}

/** The cost before anything is sent: reads the file and the answer cache, sends nothing. */
export async function planRun(run: CsvRun): Promise<Planned> {
  // Taken before the plan reads the file: a change from here on is caught at confirmation.
  let file: FileFingerprint;
  try {
    file = await fingerprint(run.inPath);
  } catch (error) {
    throw new BulkError(`${run.inPath} cannot be read: ${(error as Error).message}`);
  }
  const privacy = new Privacy();
  const plan = await planBulk({
    op: run.op,
    inPath: run.inPath,
    cachePath: run.cachePath,
    bases: run.bases,
    // People forgotten at their request are not planned (their rows are invalid); the retention
    // caps the answers' age (privacy/suppression.ts).
    maxAgeMs: privacy.maxAge(MAX_AGE_MS),
    refuse: privacy.refuse(),
    overrides: run.overrides,
    layout: sourceChoice(run),
  });
  return { plan, file };
}

/** "500 rows: 312 distinct valid requests, 20 answers already cached, 8 blank, 12 invalid." */
export function costWords(plan: BulkPlan): string {
  const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
  return (
    `${plural(plan.rows, 'row')}: ${plural(plan.distinct, 'distinct valid request')}, ` +
    // The engine counts blank rows among the invalid ones; said apart here, each row is counted once.
    `${plural(plan.cached, 'answer')} already cached, ${plan.blank} blank, ${plan.invalid - plan.blank} invalid. ` +
    `Transactions to spend: ${plan.transactions}.`
  );
}
