// The Spend view: this month's paid transactions (UTC, as the ledger counts them) per service and
// operation, read from the extension's ledger each time the view asks, and refreshed after each line
// this window appends. Show Spend, in its title bar, opens every month.
import * as vscode from 'vscode';
import type { SpendLedger } from '../spend/ledger';
import { monthOf, monthSpend, type OperationSpend, type OriginSpend, transactionsText } from '../spend/model';

export type SpendNode =
  | { readonly kind: 'origin'; readonly month: string; readonly spend: OriginSpend }
  | {
      readonly kind: 'operation';
      readonly month: string;
      readonly origin: string;
      readonly spend: OperationSpend;
    };

export class SpendTree implements vscode.TreeDataProvider<SpendNode>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SpendNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly ledger: SpendLedger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.subscription = ledger.onDidChange(() => this.changed.fire(undefined));
  }

  getChildren(node?: SpendNode): SpendNode[] {
    if (node?.kind === 'operation') return [];
    if (node) {
      return node.spend.operations.map((spend) => ({
        kind: 'operation',
        month: node.month,
        origin: node.spend.origin,
        spend,
      }));
    }
    const month = monthOf(this.now());
    return monthSpend(this.ledger.read().entries, month).map((spend) => ({ kind: 'origin', month, spend }));
  }

  getTreeItem(node: SpendNode): vscode.TreeItem {
    if (node.kind === 'origin') {
      const { origin, transactions } = node.spend;
      const item = new vscode.TreeItem(origin, vscode.TreeItemCollapsibleState.Expanded);
      item.id = `spend:${node.month}:${origin}`;
      item.description = transactionsText(transactions);
      item.tooltip = `${transactionsText(transactions)} paid with ${origin} in ${node.month} (UTC months, as invoices count them)`;
      item.iconPath = new vscode.ThemeIcon('globe');
      return item;
    }
    const { title, transactions } = node.spend;
    const item = new vscode.TreeItem(title, vscode.TreeItemCollapsibleState.None);
    item.id = `spend:${node.month}:${node.origin}:${node.spend.operation}`;
    item.description = transactions.toLocaleString('en-US');
    item.tooltip = `${title}: ${transactionsText(transactions)} paid with ${node.origin} in ${node.month} (UTC)`;
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
