// Where a run stands, as the sidebar shows it.
import type { Checkpoint } from './checkpoint.js';
import { inputA1, type ResolvedRun, targetA1 } from './resolve.js';
import type { SpendInfo } from './spend.js';
import type { RunBreakdown, RunProgress } from './types.js';

export function progressOf(
  checkpoint: Checkpoint,
  run: ResolvedRun,
  finished = false,
  more: {
    readonly breakdown?: RunBreakdown;
    readonly spend?: SpendInfo;
    readonly halted?: string;
    readonly heldByAllowance?: boolean;
  } = {},
): RunProgress {
  return {
    runId: checkpoint.id,
    operation: run.op.id,
    title: run.op.title,
    sheetName: run.sheet.getName(),
    inputA1: inputA1(run),
    targetA1: targetA1(run),
    total: run.sel.numRows - 1,
    finished,
    counts: checkpoint.counts,
    pace: checkpoint.paceText ?? '',
    breakdown: more.breakdown ?? null,
    spend: more.spend ?? null,
    halted: more.halted ?? null,
    heldByAllowance: more.heldByAllowance ?? false,
  };
}
