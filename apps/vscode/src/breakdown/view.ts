// The breakdown of a completed Enrich File run (html.ts draws it), in a webview panel
// beside the output: what came back, at a glance, which the output file alone does not say. One
// panel, reused by the next run. It lives in the Enrich File bundle (dist/csv.js): nothing of it is
// parsed until a run ends.
import { randomBytes } from 'node:crypto';
import type { BulkSummary } from '@enrich/bulk';
import type { Operation } from '@enrich/core';
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { renderBreakdownPage } from './html';

export const BREAKDOWN_VIEW_TYPE = 'enrich.breakdown';

let panel: vscode.WebviewPanel | undefined;

/** Shows the run's breakdown; a run without one (it did not complete) shows nothing. */
export function showBreakdown(
  ctx: Ctx,
  run: { readonly op: Operation; readonly inPath: string; readonly outPath: string },
  summary: BulkSummary,
): void {
  const { breakdown } = summary;
  if (!breakdown) return;
  const title = `${run.op.title}: ${baseName(run.inPath)}`;
  const shown = panel ?? createPanel(ctx, title);
  shown.title = title;
  shown.webview.html = ctx.scrub(
    renderBreakdownPage(
      { title, summary: summaryWords(summary, baseName(run.outPath)), breakdown },
      randomBytes(16).toString('base64'),
    ),
  );
  // Beside the output, which keeps the focus: the file is what the user works on next.
  shown.reveal(vscode.ViewColumn.Beside, true);
}

function createPanel(ctx: Ctx, title: string): vscode.WebviewPanel {
  const created = vscode.window.createWebviewPanel(
    BREAKDOWN_VIEW_TYPE,
    title,
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true },
    // No script, no file: the page is HTML and CSS only.
    { enableScripts: false, localResourceRoots: [] },
  );
  created.onDidDispose(() => {
    if (panel === created) panel = undefined;
  });
  ctx.subscribe(created);
  panel = created;
  return created;
}

/** "286 rows; 272 transactions spent, 0 answers from the cache; the result is leads.email-verify.csv." */
function summaryWords(s: BulkSummary, output: string): string {
  const plural = (n: number, one: string, many = `${one}s`) =>
    `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
  return `${plural(s.rows, 'row')}; ${plural(s.transactions, 'transaction')} spent, ${plural(s.fromCache, 'answer')} from the cache; the result is ${output}.`;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}
