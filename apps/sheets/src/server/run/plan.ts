// Check: what a run over the selection will do and spend at most, before anything is sent.
import { type CleanInput, operationUrl } from '@enrich/core/universal';
import { allowanceInfo } from '../allowance/runner.js';
import { documentCache } from '../answers/document-cache.js';
import { freshSince } from '../answers/freshness.js';
import { answerId } from '../answers/paid-answer.js';
import { keptAnswers } from '../answers/pending.js';
import { asCoreSettings, userSettings } from '../key/settings.js';
import { countNonEmpty, inputA1, readPlans, resolveRun, targetA1 } from './resolve.js';
import type { RunPlan, RunRequest } from './types.js';

export function planRun(request: RunRequest): RunPlan {
  const run = resolveRun(request);
  const total = run.sel.numRows - 1;
  const plans = readPlans(run, total);
  const distinct = new Map<string, CleanInput>();
  const firstRow = new Map<string, number>();
  let empty = 0;
  let invalid = 0;
  plans.forEach((plan, i) => {
    if (plan.kind === 'empty') empty++;
    else if (plan.kind === 'invalid') invalid++;
    else if (plan.input && !distinct.has(plan.key)) {
      distinct.set(plan.key, plan.input);
      firstRow.set(plan.key, i);
    }
  });
  let cached = 0;
  let unreadable = 0;
  /** Rows (0-based) of the requests to buy, in order. */
  let toBuy = [...firstRow.values()];
  const stored = userSettings();
  const target = operationUrl(run.op, asCoreSettings(stored));
  if (target.ok && distinct.size > 0) {
    const ids = new Map([...distinct.keys()].map((k) => [k, answerId(target.url, k)]));
    // Answers older than this user's setting would be bought again: their key pays.
    const kept = keptAnswers(documentCache(), [...ids.values()], freshSince(stored.answerDays));
    cached = kept.size;
    for (const answer of kept.values()) if (answer.outcome.kind === 'unreadable') unreadable++;
    toBuy = [...firstRow].filter(([key]) => !kept.has(ids.get(key) as string)).map(([, i]) => i);
  }
  const askAgain = request.askAgainUnreadable === true ? unreadable : 0;
  const allowance = allowanceInfo();
  // The run stops at the allowance: the row of the first request past it (asked-again rows aside).
  const stopIndex = toBuy[allowance.left];
  return {
    allowance,
    stopsAtRow: stopIndex === undefined ? null : run.sel.row + 1 + stopIndex,
    operation: run.op.id,
    rows: total,
    empty,
    invalid,
    distinct: distinct.size,
    cached,
    unreadable,
    transactions: distinct.size - cached + askAgain,
    nonEmpty: countNonEmpty(run, 0, run.sel.numRows),
    inputA1: inputA1(run),
    targetA1: targetA1(run),
    columns: run.columns,
  };
}
