// The result view: one webview panel that shows the latest result for people (model.ts, html.ts),
// and does what its buttons ask. The page sends only an action name and, for "Copy", an index:
// values, requests and commands are looked up here, never taken from the page. Whoever shows an
// entry (call/report.ts's showResult, which also honours `enrich.resultView: "json"`) says what its
// help button does, so that this view needs neither the context nor the call that a Retry sends.
import { randomBytes } from 'node:crypto';
import { toCurl } from '@enrich/core';
import * as vscode from 'vscode';
import { ACTION_FOR, ASK_AGAIN } from '../call/actions';
import { type HistoryEntry, operationOf } from '../history';
import { COMMAND } from '../manifest';
import { renderPage, type ViewAction } from './html';
import type { ResultDocuments } from './json-document';
import { buildModel, type ResultModel } from './model';

export const RESULT_VIEW_TYPE = 'enrich.result';

/** Does what the help button of the entry shown says (Set API Key, Retry, Open Settings, Ask again). */
export type PerformHelp = (action: string) => Promise<void>;

export class ResultView implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private entry: HistoryEntry | undefined;
  private model: ResultModel | undefined;
  private performHelp: PerformHelp | undefined;

  constructor(
    private readonly documents: ResultDocuments,
    private readonly scrub: (text: string) => string,
  ) {}

  show(entry: HistoryEntry, performHelp: PerformHelp): void {
    const panel = this.panel ?? this.createPanel();
    this.entry = entry;
    this.performHelp = performHelp;
    this.model = buildModel(entry);
    panel.title = this.model.tabTitle;
    panel.webview.html = this.scrub(
      renderPage(this.model, {
        nonce: randomBytes(16).toString('base64'),
        help: helpFor(entry),
        canCallAgain: entry.request !== undefined,
      }),
    );
    panel.reveal(vscode.ViewColumn.Active);
  }

  private createPanel(): vscode.WebviewPanel {
    const panel = vscode.window.createWebviewPanel(
      RESULT_VIEW_TYPE,
      'Enrichment result',
      vscode.ViewColumn.Active,
      {
        enableScripts: true,
        // The page loads no file: nothing on disk is reachable from it.
        localResourceRoots: [],
      },
    );
    panel.webview.onDidReceiveMessage((message: unknown) => void this.handle(message));
    panel.onDidDispose(() => {
      this.panel = undefined;
    });
    this.panel = panel;
    return panel;
  }

  private async handle(message: unknown): Promise<void> {
    const entry = this.entry;
    const model = this.model;
    const performHelp = this.performHelp;
    if (!entry || !model || message === null || typeof message !== 'object') return;
    const { action, index } = message as { action?: ViewAction; index?: unknown };
    switch (action) {
      case 'copy': {
        const value = typeof index === 'number' && Number.isInteger(index) ? model.values[index] : undefined;
        if (value === undefined) return;
        await vscode.env.clipboard.writeText(value);
        return this.say('Copied the value.');
      }
      case 'copyJson':
        await vscode.env.clipboard.writeText(this.scrub(answerJson(entry)));
        return this.say('Copied the answer as JSON.');
      case 'copyCurl':
        // The key is never in it: the command reads $ENRICH_API_KEY (core's toCurl).
        await vscode.env.clipboard.writeText(toCurl(entry.request));
        return this.say('Copied a curl command; it reads the key from $ENRICH_API_KEY.');
      case 'callAgain':
        await vscode.commands.executeCommand(COMMAND.rerun, entry.id);
        return;
      case 'openJson':
        await this.documents.show(entry);
        return;
      case 'help': {
        const help = helpFor(entry);
        if (help) await performHelp?.(help);
        return;
      }
    }
  }

  private say(text: string): void {
    void this.panel?.webview.postMessage({ said: text });
    vscode.window.setStatusBarMessage(`Enrichment: ${text}`, 3000);
  }

  dispose(): void {
    this.panel?.dispose();
  }
}

/** The action that helps after this outcome, as the notification offers it. */
function helpFor(entry: HistoryEntry): string | undefined {
  const { outcome } = entry;
  if (outcome.kind === 'unreadable') return ASK_AGAIN;
  if (outcome.kind === 'error') return ACTION_FOR[outcome.error.code];
  return undefined;
}

/** What the service sent, pretty-printed; the record read from it when the raw body is not kept. */
function answerJson(entry: HistoryEntry): string {
  const { outcome } = entry;
  if (outcome.kind !== 'record')
    return JSON.stringify({ operation: operationOf(entry).title, result: outcome.kind }, null, 2);
  try {
    return JSON.stringify(JSON.parse(outcome.raw), null, 2);
  } catch {
    return JSON.stringify({ ...outcome.record, ...outcome.extra }, null, 2);
  }
}
