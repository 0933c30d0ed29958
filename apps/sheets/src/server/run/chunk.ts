// One chunk of a run, driven by the sidebar: as many rows as chunk-size.ts says, in order. A chunk
// fetches what its rows need, writes a contiguous run of rows (up to the first one still waiting for an answer),
// then moves the checkpoint; so a stopped, failed or abandoned run resumes where it was and pays for
// nothing twice. Target cells that were empty at the start are checked again before writing.
import {
  checkApiKey,
  type LeafValue,
  type Outcome,
  type RowOutcomeKind,
  rowStatusText,
  type SpendRow,
} from '@enrich/core/universal';
import { runnerGate } from '../allowance/runner.js';
import { freshSince } from '../answers/freshness.js';
import { type CellValue, TEXT_FORMAT, toCells } from '../cells/values.js';
import { underDocumentLock } from '../document-lock.js';
import { currentScrubber } from '../key/scrub.js';
import { asCoreSettings, noKeyMessageForSidebar, userSettings } from '../key/settings.js';
import { runHeldText, STATUS_COLUMN } from '../messages.js';
import { otherService, provenanceNote } from '../provenance/note.js';
import { runBreakdown } from './breakdown.js';
import { allowanceLeft, ceilingMessage } from './ceiling.js';
import { deleteCheckpoint, loadCheckpoint, type RunCounts, saveCheckpoint } from './checkpoint.js';
import { fetchChunkAnswers } from './chunk-answers.js';
import { chunkRows } from './chunk-size.js';
import { progressOf } from './progress.js';
import { countNonEmpty, readPlans, resolveCheckpoint, spreadsheetId } from './resolve.js';
import { blankRow, copySources, kindOfStatus, rowForOutcome, statusRow } from './rows.js';
import { addSpend, readSpend, spendInfo, spendProperty } from './spend.js';
import type { RunProgress } from './types.js';

/** Does the next chunk of the run and returns where it stands. */
export function runChunk(runId: string): RunProgress {
  const done = underDocumentLock(10_000, () => doChunk(runId));
  if (!done) throw new Error('Another run is writing to this spreadsheet; try again in a moment.');
  return done.value;
}

function doChunk(runId: string): RunProgress {
  const started = Date.now();
  const ssId = spreadsheetId();
  const checkpoint = loadCheckpoint(ssId);
  if (!checkpoint || checkpoint.id !== runId) {
    throw new Error('This run is no longer current (it finished, or another one replaced it).');
  }
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
  if (!stored.apiKey) throw new Error(noKeyMessageForSidebar());
  const keyProblem = checkApiKey(stored.apiKey);
  if (keyProblem) throw new Error(keyProblem);
  const settings = asCoreSettings(stored);
  const gate = runnerGate(stored.apiKey);

  const start = checkpoint.next;
  const end = Math.min(total, start + chunkRows(checkpoint.pace));
  const plans = readPlans(run, end);
  const firstRow = new Map<string, number>();
  plans.forEach((plan, i) => {
    if (plan.kind === 'request' && !firstRow.has(plan.key)) firstRow.set(plan.key, i);
  });

  const answers = fetchChunkAnswers(
    run,
    settings,
    { plans, firstRow, start, end },
    {
      started,
      pace: checkpoint.pace,
      askAgainBefore: checkpoint.askAgainBefore,
      freshSince: freshSince(stored.answerDays),
      allowance: allowanceLeft(checkpoint),
      gate,
    },
  );
  checkpoint.pace = answers.pace;
  if (answers.paceText) checkpoint.paceText = answers.paceText;
  checkpoint.counts = {
    ...checkpoint.counts,
    throttled: checkpoint.counts.throttled + answers.throttled,
    retries: checkpoint.counts.retries + answers.retries,
  };
  let spend: SpendRow[] | undefined;
  if (answers.spent > 0) {
    // Recorded before writing: if the write fails, the answers wait in the cache, and the count of
    // what was paid must not be lost with the chunk. The user's spend record (spend.ts) goes in the
    // same property write.
    checkpoint.counts = { ...checkpoint.counts, spent: checkpoint.counts.spent + answers.spent };
    spend = addSpend(readSpend(ssId), run.op, settings, answers.spent);
    saveCheckpoint(ssId, checkpoint, spendProperty(ssId, spend));
  }

  // Rows up to the first one still waiting for an answer are written now.
  let stop = end;
  for (let i = start; i < end; i++) {
    const plan = plans[i];
    if (
      plan?.kind === 'request' &&
      (firstRow.get(plan.key) as number) >= start &&
      !answers.byKey.has(plan.key)
    ) {
      stop = i;
      break;
    }
  }

  const copies = copySources(run, plans, firstRow, start, stop);
  const counts: RunCounts = { ...checkpoint.counts };
  counts.cached += answers.cached;
  const scrub = currentScrubber();
  const service = otherService(run.op, settings);
  const out: CellValue[][] = [];
  // Where each row's answer came from, on its Status cell (provenance/note.ts).
  const notes: string[][] = [];
  for (let i = start; i < stop; i++) {
    const plan = plans[i];
    let row: LeafValue[];
    let note = '';
    if (!plan || plan.kind === 'empty') {
      row = blankRow(run.width);
      counts.empty++;
    } else if (plan.kind === 'invalid') {
      row = statusRow(run.width, rowStatusText('invalid', plan.message));
      counts.invalid++;
    } else {
      const first = firstRow.get(plan.key) as number;
      let kind: RowOutcomeKind;
      if (first < start) {
        const copy = copies.get(first);
        row = copy?.cells ?? blankRow(run.width);
        note = copy?.note ?? '';
        kind = kindOfStatus(String(row[0]));
      } else {
        const written = rowForOutcome(run, answers.byKey.get(plan.key) as Outcome);
        const origin = answers.origins.get(plan.key);
        row = written.cells;
        kind = written.kind;
        if (origin && isAnswer(kind)) note = provenanceNote(run.op, origin, service);
      }
      count(counts, kind);
    }
    out.push(toCells(row, scrub));
    notes.push([note]);
  }

  if (stop > start) {
    const writeFrom = start === 0 ? 0 : start + 1; // selection row offset; 0 is the header row
    const writeTo = stop + 1;
    if (!checkpoint.overwrite && countNonEmpty(run, writeFrom, writeTo) > 0) {
      throw new Error(
        'Target cells that were empty when the run started are no longer empty; start again and confirm to overwrite them.',
      );
    }
    const values = start === 0 ? [toCells([STATUS_COLUMN, ...run.columns], scrub), ...out] : out;
    const range = run.sheet.getRange(run.sel.row + writeFrom, run.targetColumn, values.length, run.width);
    range.setNumberFormat(TEXT_FORMAT);
    range.setValues(values);
    range.offset(0, 0, values.length, 1).setNotes(start === 0 ? [[''], ...notes] : notes);
  }
  counts.done = stop;
  checkpoint.next = stop;
  checkpoint.counts = counts;
  const finished = stop >= total;
  if (!finished) {
    saveCheckpoint(ssId, checkpoint);
    SpreadsheetApp.flush();
    const held = answers.held;
    const halted = answers.overCeiling
      ? ceilingMessage(checkpoint, run, { from: stop, to: end }, answers.overCeiling.needed)
      : held
        ? runHeldText(
            held,
            held === 'month' ? gate.limits().month : gate.limits().day,
            run.sel.row + 1 + stop,
          )
        : undefined;
    return progressOf(checkpoint, run, false, {
      ...(spend ? { spend: spendInfo(spend) } : {}),
      halted,
      heldByAllowance: held !== undefined,
    });
  }
  // Read before the checkpoint goes: should the read fail, resuming does the last chunk again (its
  // answers are cached, so for nothing) and reads it then.
  const breakdown = runBreakdown(run, counts);
  deleteCheckpoint(ssId);
  SpreadsheetApp.flush();
  return progressOf(checkpoint, run, true, { breakdown, spend: spendInfo(spend ?? readSpend(ssId)) });
}

/** A row that shows an answer the service gave (paid for), so it has a provenance. */
function isAnswer(kind: RowOutcomeKind): boolean {
  return kind === 'ok' || kind === 'no-match' || kind === 'unreadable';
}

/** Counts a request row by what it came to. */
function count(counts: RunCounts, kind: RowOutcomeKind): void {
  if (kind === 'no-match') counts.noMatch++;
  else if (kind === 'unreadable') counts.unreadable++;
  else if (kind !== 'ok') counts.errors++;
}
