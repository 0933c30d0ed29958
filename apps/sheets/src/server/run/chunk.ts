// One chunk of a run, driven by the sidebar: as many rows as chunk-size.ts says, in order. A chunk
// fetches what its rows need, writes a contiguous run of rows (up to the first one still waiting for an answer),
// then moves the checkpoint; so a stopped, failed or abandoned run resumes where it was and pays for
// nothing twice. Target cells that were empty at the start are checked again before writing.
import { checkApiKey, type Settings, type SpendRow } from '@enrich/core/universal';
import { runnerGate } from '../allowance/runner.js';
import { freshSince } from '../answers/freshness.js';
import { underDocumentLock } from '../document-lock.js';
import { asCoreSettings, noKeyMessageForSidebar, userSettings } from '../key/settings.js';
import { runHeldText } from '../messages.js';
import { runBreakdown } from './breakdown.js';
import { allowanceLeft, ceilingMessage } from './ceiling.js';
import { type Checkpoint, deleteCheckpoint, loadCheckpoint, saveCheckpoint } from './checkpoint.js';
import { type ChunkAnswers, fetchChunkAnswers } from './chunk-answers.js';
import { writableUpTo, writeRows } from './chunk-rows.js';
import { chunkRows } from './chunk-size.js';
import { progressOf } from './progress.js';
import { type PlannedRow, type ResolvedRun, readPlans, resolveCheckpoint, spreadsheetId } from './resolve.js';
import { addSpend, readSpend, spendInfo, spendProperty } from './spend.js';
import type { RunProgress } from './types.js';

/** Does the next chunk of the run and returns where it stands. */
export function runChunk(runId: string): RunProgress {
  const done = underDocumentLock(10_000, () => doChunk(runId));
  if (!done) throw new Error('Another run is writing to this spreadsheet; try again in a moment.');
  return done.value;
}

// The chunk's steps: the run as the checkpoint left it, its key, the rows' plans, their answers
// (cached or bought, within the allowance), the spend recorded, the rows written, where it stands.
function doChunk(runId: string): RunProgress {
  const started = Date.now();
  const ssId = spreadsheetId();
  const checkpoint = currentCheckpoint(ssId, runId);
  const run = resolveCheckpoint(checkpoint);
  const total = run.sel.numRows - 1;
  if (checkpoint.next >= total) {
    deleteCheckpoint(ssId);
    return progressOf(checkpoint, run, true, {
      breakdown: runBreakdown(run, checkpoint.counts),
      spend: spendInfo(readSpend(ssId)),
    });
  }
  const stored = userSettings();
  const settings = settingsWithKey(stored);
  const gate = runnerGate(stored.apiKey as string);

  const start = checkpoint.next;
  const end = Math.min(total, start + chunkRows(checkpoint.pace));
  const plans = readPlans(run, end);
  const window = { plans, firstRow: firstRowOfEachKey(plans), start, end };
  const answers = fetchChunkAnswers(run, settings, window, {
    started,
    pace: checkpoint.pace,
    askAgainBefore: checkpoint.askAgainBefore,
    freshSince: freshSince(stored.answerDays),
    allowance: allowanceLeft(checkpoint),
    gate,
  });
  const spend = takeAnswers(ssId, checkpoint, run, settings, answers);

  const stop = writableUpTo(window, answers);
  const counts = writeRows(run, checkpoint, settings, answers, { ...window, stop });
  counts.done = stop;
  checkpoint.next = stop;
  checkpoint.counts = counts;
  if (stop < total) {
    saveCheckpoint(ssId, checkpoint);
    SpreadsheetApp.flush();
    return progressOf(checkpoint, run, false, {
      ...(spend ? { spend: spendInfo(spend) } : {}),
      halted: haltedText(checkpoint, run, answers, gate, { stop, end }),
      heldByAllowance: answers.held !== undefined,
    });
  }
  // Read before the checkpoint goes: should the read fail, resuming does the last chunk again (its
  // answers are cached, so for nothing) and reads it then.
  const breakdown = runBreakdown(run, counts);
  deleteCheckpoint(ssId);
  SpreadsheetApp.flush();
  return progressOf(checkpoint, run, true, { breakdown, spend: spendInfo(spend ?? readSpend(ssId)) });
}

function currentCheckpoint(ssId: string, runId: string): Checkpoint {
  const checkpoint = loadCheckpoint(ssId);
  if (!checkpoint || checkpoint.id !== runId) {
    throw new Error('This run is no longer current (it finished, or another one replaced it).');
  }
  return checkpoint;
}

/** The sidebar user's settings, refused without a usable key. */
function settingsWithKey(stored: ReturnType<typeof userSettings>): Settings {
  if (!stored.apiKey) throw new Error(noKeyMessageForSidebar());
  const keyProblem = checkApiKey(stored.apiKey);
  if (keyProblem) throw new Error(keyProblem);
  return asCoreSettings(stored);
}

/** Request key → the first row (0-based) that asks it. */
function firstRowOfEachKey(plans: readonly PlannedRow[]): Map<string, number> {
  const firstRow = new Map<string, number>();
  plans.forEach((plan, i) => {
    if (plan.kind === 'request' && !firstRow.has(plan.key)) firstRow.set(plan.key, i);
  });
  return firstRow;
}

/** What the answers taught the checkpoint (the pace, 429s, retries, spent); the spend, if any. */
function takeAnswers(
  ssId: string,
  checkpoint: Checkpoint,
  run: ResolvedRun,
  settings: Settings,
  answers: ChunkAnswers,
): SpendRow[] | undefined {
  checkpoint.pace = answers.pace;
  if (answers.paceText) checkpoint.paceText = answers.paceText;
  checkpoint.counts = {
    ...checkpoint.counts,
    throttled: checkpoint.counts.throttled + answers.throttled,
    retries: checkpoint.counts.retries + answers.retries,
  };
  if (answers.spent === 0) return undefined;
  // Recorded before writing: if the write fails, the answers wait in the cache, and the count of
  // what was paid must not be lost with the chunk. The user's spend record (spend.ts) goes in the
  // same property write.
  checkpoint.counts = { ...checkpoint.counts, spent: checkpoint.counts.spent + answers.spent };
  const spend = addSpend(readSpend(ssId), run.op, settings, answers.spent);
  saveCheckpoint(ssId, checkpoint, spendProperty(ssId, spend));
  return spend;
}

/** Why the run stopped before its end, when something held it (the ceiling, the allowance). */
function haltedText(
  checkpoint: Checkpoint,
  run: ResolvedRun,
  answers: ChunkAnswers,
  gate: ReturnType<typeof runnerGate>,
  rows: { readonly stop: number; readonly end: number },
): string | undefined {
  if (answers.overCeiling) {
    return ceilingMessage(checkpoint, run, { from: rows.stop, to: rows.end }, answers.overCeiling.needed);
  }
  const held = answers.held;
  if (!held) return undefined;
  return runHeldText(
    held,
    held === 'month' ? gate.limits().month : gate.limits().day,
    run.sel.row + 1 + rows.stop,
  );
}
