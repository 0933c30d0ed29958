// "Enrich File..." itself (command.ts loads this file, a bundle of its own, on first use): a CSV
// (.csv, .tsv, .txt), an Excel workbook (.xlsx) or JSON Lines (.jsonl, .ndjson). Pick the operation
// (and a workbook's sheet), review the mapping and the cost, confirm, run with progress and Cancel,
// open `<name>.<operation>.<the input's extension>`. A run that did not complete is remembered
// (globalState), so the next "Enrich File..." on the file offers to resume it with the same
// operation, sheet and mapping; the answer journal makes resuming spend nothing twice.
//
// The plan the person confirmed is the run's ceiling: the key and the bases are read once, when the
// command starts, and the run sends there (files.ts); it starts only on the file that was planned
// (file-fingerprint.ts), and spends at most the transactions confirmed (run.ts).
import { BulkError, type BulkSummary, kindOfName, OutputInTheWay } from '@enrich/bulk';
import {
  checkApiKey,
  findOperation,
  OPERATIONS,
  type Operation,
  paceReachedText,
  throttledText,
} from '@enrich/core';
import * as vscode from 'vscode';
import { showBreakdown } from '../breakdown/view';
import type { Ctx } from '../ctx';
import { COMMAND } from '../manifest';
import { changeSince } from './file-fingerprint';
import { type CsvRun, costWords, csvRun, type Planned, runService } from './files';
import { isEnrichable, openDialogFilters } from './kinds';
import { askSheet, reviewMapping } from './mapping';
import { showOutput } from './open-output';
import { enrichFile } from './run';
import { type SheetInfo, workbookSheets } from './workbook-sheets';

export const UNFINISHED_KEY = 'enrich.unfinishedCsvRuns';

interface Unfinished {
  readonly operationId: string;
  readonly overrides: Readonly<Record<string, string>>;
  /** The workbook's sheet, when the user picked one. */
  readonly sheet?: string | undefined;
}

export async function enrichCsvFlow(ctx: Ctx, arg?: vscode.Uri): Promise<BulkSummary | undefined> {
  const file = arg instanceof Object && 'fsPath' in arg ? arg : await askFile();
  if (!file) return undefined;
  const inPath = file.fsPath;
  const apiKey = await ctx.refresh();
  if (!apiKey || checkApiKey(apiKey)) {
    const action = await vscode.window.showWarningMessage(
      'Enrich File: set a valid API key first (or try without one: Enrichment: Try Without a Key). Nothing was sent.',
      'Set API Key',
      'Try Without a Key',
    );
    if (action === 'Set API Key') await vscode.commands.executeCommand(COMMAND.setApiKey);
    if (action === 'Try Without a Key') await vscode.commands.executeCommand(COMMAND.tryWithoutKey);
    return undefined;
  }
  // Where the run goes, fixed with the key: what the review's cost (its cache), the run and the
  // ledger all use, whatever the settings say by the time the person confirms.
  const bases = ctx.config.bases;
  const started = await chooseOperation(ctx, inPath);
  if (!started) return undefined;
  try {
    // A workbook of several sheets: which one, before the mapping (a resumed run keeps its own).
    const sheets: SheetInfo[] = kindOfName(inPath) === 'xlsx' ? await workbookSheets(inPath) : [];
    let sheet = started.sheet;
    if (sheet === undefined && sheets.length > 1) {
      sheet = await askSheet(inPath, sheets);
      if (sheet === undefined) return undefined;
    }
    const reviewed = await reviewMapping(
      csvRun(bases, started.op, inPath, started.overrides, sheet),
      (overrides, other) => csvRun(bases, started.op, inPath, overrides, other),
      sheets,
    );
    if (!reviewed) return undefined;
    const { run, plan } = reviewed;
    const spend = `Enrich (${plan.transactions} transaction${plan.transactions === 1 ? '' : 's'})`;
    const answer = await vscode.window.showWarningMessage(
      `${run.op.title} on ${shortName(inPath)}: spend ${plan.transactions} transaction${plan.transactions === 1 ? '' : 's'}?`,
      {
        modal: true,
        detail: `${costWords(plan)} Read as ${plan.found}. The result goes to ${shortName(run.outPath)}. Service: ${runService(run)}.`,
      },
      spend,
    );
    if (answer !== spend) return undefined;
    const summary = await runConfirmed(ctx, reviewed, apiKey);
    if (summary) await report(ctx, run, summary);
    return summary;
  } catch (error) {
    // The engine's own words for what stops a run before anything is sent (unreadable file, locks...).
    if (!(error instanceof BulkError)) throw error;
    void vscode.window.showErrorMessage(ctx.scrub(`Enrich File: ${error.message}`));
    return undefined;
  }
}

/**
 * The run the person confirmed: on the file that was planned (else nothing is sent, and the person
 * is told to look at the new cost), spending at most the transactions confirmed. A file of the
 * user's where the result would go is replaced only when they say so; nothing was sent before they
 * are asked.
 */
async function runConfirmed(
  ctx: Ctx,
  reviewed: Planned & { run: CsvRun },
  apiKey: string,
  force = false,
): Promise<BulkSummary | undefined> {
  const { run, plan } = reviewed;
  const changed = await changeSince(run.inPath, reviewed.file);
  if (changed) {
    ctx.log.warn(`Enrich File ${run.inPath}: not started, the file changed since the plan (${changed})`);
    void vscode.window.showWarningMessage(
      ctx.scrub(
        `Enrich File: ${shortName(run.inPath)} changed since the plan (${changed}), so nothing was sent. Run Enrich File again to see the cost of the file as it is now.`,
      ),
    );
    return undefined;
  }
  if (!force) {
    await remember(ctx, run.inPath, { operationId: run.op.id, overrides: run.overrides, sheet: run.sheet });
    ctx.log.info(
      `Enrich File ${run.inPath} (${plan.found}) with ${run.op.title}: ${plan.transactions} transactions planned, at most that many spent`,
    );
  }
  try {
    return await enrichFile(ctx, run, apiKey, { maxTransactions: plan.transactions, force });
  } catch (error) {
    if (!(error instanceof OutputInTheWay) || force) throw error;
    const replace = `Replace ${shortName(run.outPath)}`;
    const answer = await vscode.window.showWarningMessage(
      `${shortName(run.outPath)} exists and was not written by Enrich File. Replace it with the result?`,
      { modal: true, detail: 'Nothing has been sent yet. Cancel leaves the file as it is.' },
      replace,
    );
    return answer === replace ? runConfirmed(ctx, reviewed, apiKey, true) : undefined;
  }
}

async function report(ctx: Ctx, run: CsvRun, summary: BulkSummary): Promise<void> {
  const { inPath, outPath } = run;
  const counts = `${summary.transactions} transaction${summary.transactions === 1 ? '' : 's'} spent, ${summary.fromCache} from the cache`;
  ctx.log.info(`Enrich File ${inPath}: ${summary.completed ? 'completed' : 'stopped'}; ${counts}`);
  if (summary.inputError) {
    void vscode.window.showErrorMessage(
      ctx.scrub(
        `Enrich File stopped: ${summary.inputError}. ${counts}; every answer bought is kept: mend the file and run Enrich File again, nothing is bought twice.`,
      ),
    );
    return;
  }
  if (summary.stopped === 'budget') {
    // The file or the answer cache asked for more than the plan counted; the rest waits for a new plan.
    const rows = summary.notSent;
    void vscode.window.showWarningMessage(
      ctx.scrub(
        `Enrich File spent the ${plural(summary.transactions, 'transaction')} you confirmed and stopped there: ${plural(rows, 'row was', 'rows were')} not sent, since the file or the answer cache asked for more than the plan counted. Answers bought are kept; run Enrich File on ${shortName(inPath)} again to see the cost of the rest and confirm it.`,
      ),
    );
    return;
  }
  if (!summary.completed) {
    const why = summary.stopped ? ` (${summary.stopped})` : '';
    void vscode.window.showWarningMessage(
      ctx.scrub(
        `Enrich File stopped${why}: ${counts}. Every answer bought is kept; run Enrich File on ${shortName(inPath)} again to finish without paying twice.`,
      ),
    );
    return;
  }
  await forget(ctx, inPath);
  await showOutput(
    ctx,
    outPath,
    `Enrich File: wrote ${shortName(outPath)}; ${counts}; ${summary.ok} ok, ${summary.noMatch} no match, ${summary.invalid - summary.blank} invalid, ${summary.blank} blank, ${summary.errors} errors.${paceSentence(summary)}`,
  );
  // What came back, as a chart beside the output.
  showBreakdown(ctx, run, summary);
}

/** " Pace: 48.7 answers/s; found by itself: ...; 429 answers: 3 (0.2 % of requests sent)." (core's words) */
function paceSentence(summary: BulkSummary): string {
  if (!summary.pace || summary.requests === 0) return '';
  const throttled =
    summary.throttled > 0 ? `; 429 answers: ${throttledText(summary.throttled, summary.attempts)}` : '';
  return ` Pace: ${paceReachedText(summary.pace)}${throttled}.`;
}

/** The operation, or the unfinished run on this file (same operation, sheet and mapping) to resume. */
async function chooseOperation(ctx: Ctx, inPath: string) {
  const unfinished = ctx.extension.globalState.get<Record<string, Unfinished>>(UNFINISHED_KEY, {})[inPath];
  const resumeOp = unfinished ? findOperation(unfinished.operationId) : undefined;
  type Item = vscode.QuickPickItem & {
    op: Operation;
    overrides?: Readonly<Record<string, string>>;
    sheet?: string | undefined;
  };
  const items: Item[] = [
    ...(resumeOp && unfinished
      ? [
          {
            label: `$(debug-continue) Resume ${resumeOp.title}`,
            description: 'answers already bought are not paid again',
            op: resumeOp,
            overrides: unfinished.overrides,
            sheet: unfinished.sheet,
          },
        ]
      : []),
    ...OPERATIONS.map((op) => ({ label: op.title, description: op.category, op })),
  ];
  const chosen = await vscode.window.showQuickPick(items, {
    title: `Enrich ${shortName(inPath)}: which operation?`,
    ignoreFocusOut: true,
  });
  return chosen ? { op: chosen.op, overrides: chosen.overrides ?? {}, sheet: chosen.sheet } : undefined;
}

async function remember(ctx: Ctx, inPath: string, run: Unfinished): Promise<void> {
  const all = ctx.extension.globalState.get<Record<string, Unfinished>>(UNFINISHED_KEY, {});
  await ctx.extension.globalState.update(UNFINISHED_KEY, { ...all, [inPath]: run });
}

async function forget(ctx: Ctx, inPath: string): Promise<void> {
  const { [inPath]: _done, ...rest } = ctx.extension.globalState.get<Record<string, Unfinished>>(
    UNFINISHED_KEY,
    {},
  );
  await ctx.extension.globalState.update(UNFINISHED_KEY, rest);
}

/** From the palette: the file in the active editor when it is one the command takes, else the picker's. */
async function askFile(): Promise<vscode.Uri | undefined> {
  const active = vscode.window.activeTextEditor?.document.uri;
  if (active?.scheme === 'file' && isEnrichable(active.fsPath)) return active;
  const picked = await vscode.window.showOpenDialog({
    canSelectMany: false,
    filters: openDialogFilters(),
    openLabel: 'Enrich',
    title: 'Enrich File: a CSV, Excel workbook or JSON Lines file',
  });
  return picked?.[0];
}

/** "1 transaction", "2 transactions"; "1 row was", "3 rows were". */
function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

function shortName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
