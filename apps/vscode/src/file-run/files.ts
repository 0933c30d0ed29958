// Where an "Enrich File" run reads, writes and remembers, and whose answers it may reuse: the same
// choices as the CLI's defaults (the bulk engine's own helpers), so the extension writes the same
// file as `enrich <op> --in <file>` and shares its answer cache: nothing is bought twice because
// the other client asked.
import {
  type Bases,
  type BulkPlan,
  cacheNamespace,
  defaultCachePath,
  defaultOutputPath,
  planBulk,
  type SourceChoice,
} from '@enrich/bulk';
import type { Operation } from '@enrich/core';
import type { Ctx } from '../ctx';

/** The CLI's default `--max-age 30d`: older answers are asked again. */
export const MAX_AGE_MS = 30 * 24 * 3_600_000;

export interface CsvRun {
  readonly op: Operation;
  readonly inPath: string;
  readonly outPath: string;
  readonly cachePath: string;
  readonly namespace: string;
  /** Where the run sends (the session's sandbox or not): its cache namespace and its ledger origin. */
  readonly bases: Bases;
  /** API field -> input column, where the user changed the automatic mapping. */
  readonly overrides: Readonly<Record<string, string>>;
  /** A workbook's sheet the user picked; undefined: the engine reads the first (or the file is no workbook). */
  readonly sheet: string | undefined;
}

export function csvRun(
  ctx: Ctx,
  op: Operation,
  inPath: string,
  overrides: Readonly<Record<string, string>>,
  sheet?: string,
): CsvRun {
  // The session's own sandbox is "sandbox" whatever its port, as the CLI's --sandbox.
  const where = ctx.config.bases;
  // Beside the input, of its kind: leads.xlsx gives leads.phone-lookup.xlsx.
  const outPath = defaultOutputPath(inPath, op);
  return {
    op,
    inPath,
    outPath,
    cachePath: defaultCachePath(outPath),
    namespace: cacheNamespace(op, where),
    bases: where,
    overrides,
    sheet,
  };
}

/** What the engine is told about reading the input: the sheet picked; a CSV's layout is found. */
export function sourceChoice(run: CsvRun): SourceChoice {
  return { sheet: run.sheet };
}

/** The cost before anything is sent: reads the file and the answer cache, sends nothing. */
export function planRun(run: CsvRun): Promise<BulkPlan> {
  return planBulk({
    op: run.op,
    inPath: run.inPath,
    cachePath: run.cachePath,
    namespace: run.namespace,
    maxAgeMs: MAX_AGE_MS,
    overrides: run.overrides,
    layout: sourceChoice(run),
  });
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
