// The History view: recent calls, newest first; clicking one opens its result again, and the
// context menu re-runs it, copies it as curl or deletes it.
import * as vscode from 'vscode';
import { statusText } from '../call/status-text';
import { type History, type HistoryEntry, inputSummary, operationOf, transactionWords } from '../history';
import { COMMAND, HISTORY_ITEM } from '../manifest';

export class HistoryTree implements vscode.TreeDataProvider<HistoryEntry>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<HistoryEntry | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly history: History) {
    this.subscription = history.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(entry?: HistoryEntry): HistoryEntry[] {
    return entry ? [] : [...this.history.all()];
  }

  getTreeItem(entry: HistoryEntry): vscode.TreeItem {
    const op = operationOf(entry);
    const item = new vscode.TreeItem(`${op.title}: ${inputSummary(entry.input, 32)}`);
    item.id = entry.id;
    const when = new Date(entry.at);
    item.description = `${statusText(entry)} · ${when.toLocaleTimeString()}`;
    item.tooltip = [
      `${op.title} (${statusText(entry)}) at ${when.toLocaleString()}`,
      `Input: ${inputSummary(entry.input, 200)}`,
      `${entry.durationMs} ms, ${entry.attempts} attempt(s), transaction ${transactionWords(entry)}`,
    ].join('\n');
    item.contextValue = HISTORY_ITEM;
    item.iconPath = new vscode.ThemeIcon(ICON[entry.outcome.kind]);
    item.command = { command: COMMAND.openResult, title: 'Open Result', arguments: [entry.id] };
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

const ICON: Record<HistoryEntry['outcome']['kind'], string> = {
  record: 'pass',
  'no-match': 'circle-slash',
  unreadable: 'warning',
  error: 'error',
};
