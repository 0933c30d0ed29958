// Each call's answer as a read-only JSON document (a virtual document: nothing is written to disk),
// titled with the operation and the time (never the input: `resultTabTitle`), and stating the status, the time and whether the call
// spent a transaction. An answer that differs from the API description says so: fields the
// description does not list are shown (`notInTheDescription`), and what did not match is listed
// (`notAsDocumented`). A paid answer that could not be read is shown as "paid, unreadable" with
// the body that arrived.
import * as vscode from 'vscode';
import { type History, type HistoryEntry, operationOf, resultTabTitle, transactionWords } from '../history';
import { resultWords } from './model';

export const RESULT_SCHEME = 'enrich-result';

export class ResultDocuments implements vscode.TextDocumentContentProvider {
  // This session's results, so that a result stays readable after its history entry is dropped.
  private readonly shown = new Map<string, HistoryEntry>();

  constructor(
    private readonly history: History,
    private readonly scrub: (text: string) => string = (text) => text,
  ) {}

  uriFor(entry: HistoryEntry): vscode.Uri {
    return vscode.Uri.from({
      scheme: RESULT_SCHEME,
      path: `/${resultTabTitle(entry)}.json`,
      query: entry.id,
    });
  }

  async show(entry: HistoryEntry): Promise<vscode.TextEditor> {
    this.shown.set(entry.id, entry);
    const document = await vscode.workspace.openTextDocument(this.uriFor(entry));
    return vscode.window.showTextDocument(document, { preview: false });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const entry = this.shown.get(uri.query) ?? this.history.get(uri.query);
    if (!entry) return JSON.stringify({ message: 'This result is no longer kept.' }, null, 2);
    return this.scrub(renderResult(entry));
  }
}

/** The document's text: what a developer wants to read first, then the whole record. */
export function renderResult(entry: HistoryEntry): string {
  const { outcome } = entry;
  const doc: Record<string, unknown> = {
    operation: operationOf(entry).title,
    input: entry.input,
    status: outcome.kind === 'error' ? (outcome.error.status ?? null) : outcome.status,
    result: resultWords(entry),
    transaction: transactionWords(entry),
    sentAt: new Date(entry.at).toISOString(),
    durationMs: entry.durationMs,
    attempts: entry.attempts,
  };
  switch (outcome.kind) {
    case 'record':
      doc.record = outcome.record;
      // Entries stored before tolerant reading have neither.
      if (outcome.extra && Object.keys(outcome.extra).length > 0) doc.notInTheDescription = outcome.extra;
      if (outcome.mismatches && outcome.mismatches.length > 0)
        doc.notAsDocumented = outcome.mismatches.map((m) => `${m.field}: ${m.detail}`);
      break;
    case 'no-match':
      doc.message = 'No record matches this input.';
      break;
    case 'unreadable':
      doc.message = `The service answered 200, so the transaction was spent, but ${outcome.reason}. It was not asked again; "Ask again" buys the answer again.`;
      doc.received = outcome.raw;
      break;
    case 'error':
      doc.message = outcome.error.message;
      break;
  }
  return `${JSON.stringify(doc, null, 2)}\n`;
}
