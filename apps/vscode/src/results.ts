// Each call's answer as a read-only JSON document (a virtual document: nothing is written to disk),
// titled with the operation and the input, and stating the status, the time and whether the call
// spent a transaction.
import * as vscode from 'vscode';
import { type History, type HistoryEntry, inputSummary, operationOf } from './history';

export const RESULT_SCHEME = 'enrich-result';

export class ResultDocuments implements vscode.TextDocumentContentProvider {
  // This session's results, so that a result stays readable after its history entry is dropped.
  private readonly shown = new Map<string, HistoryEntry>();

  constructor(private readonly history: History) {}

  uriFor(entry: HistoryEntry): vscode.Uri {
    const title = `${operationOf(entry).title} ${inputSummary(entry.input)}`.replace(/[/\\?#%]/g, '-');
    return vscode.Uri.from({ scheme: RESULT_SCHEME, path: `/${title}.json`, query: entry.id });
  }

  async show(entry: HistoryEntry): Promise<vscode.TextEditor> {
    this.shown.set(entry.id, entry);
    const document = await vscode.workspace.openTextDocument(this.uriFor(entry));
    return vscode.window.showTextDocument(document, { preview: false });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const entry = this.shown.get(uri.query) ?? this.history.get(uri.query);
    if (!entry) return JSON.stringify({ message: 'This result is no longer kept.' }, null, 2);
    return renderResult(entry);
  }
}

/** The document's text: what a developer wants to read first, then the whole record. */
export function renderResult(entry: HistoryEntry): string {
  const { outcome } = entry;
  const doc: Record<string, unknown> = {
    operation: operationOf(entry).title,
    input: entry.input,
    status: outcome.kind === 'error' ? (outcome.error.status ?? null) : outcome.status,
    result: outcome.kind === 'record' ? 'record' : outcome.kind === 'no-match' ? 'no match' : 'error',
    transaction: entry.billable ? 'spent' : 'not spent',
    sentAt: new Date(entry.at).toISOString(),
    durationMs: entry.durationMs,
    attempts: entry.attempts,
  };
  if (outcome.kind === 'record') doc.record = outcome.record;
  if (outcome.kind === 'no-match') doc.message = 'No record matches this input.';
  if (outcome.kind === 'error') doc.message = outcome.error.message;
  return `${JSON.stringify(doc, null, 2)}\n`;
}
