// --dry-run: what a bulk run would do and spend (the engine's planBulk). Sends nothing, needs no
// key, and changes no file.
import { type BulkPlan, type PlanOptions, planBulk } from '@enrich/bulk';
import { usageError } from './bulk.js';

export type DryRunSummary = BulkPlan;

export async function dryRun(options: PlanOptions): Promise<BulkPlan> {
  try {
    return await planBulk(options);
  } catch (error) {
    throw usageError(error);
  }
}
