// "Show Spend": the ledger's totals by month as a read-only Markdown document (a table per month:
// service, operation, transactions), to check against the provider's invoice. Virtual, like the
// result documents: nothing is written to disk, and an open document follows the ledger as it grows.
// The Show Spend command (commands.ts) opens SPEND_URI.
import * as vscode from 'vscode';
import type { SpendLedger } from './ledger';
import { type MonthSpend, spendByMonth } from './model';

export const SPEND_SCHEME = 'enrich-spend';
export const SPEND_URI = vscode.Uri.from({ scheme: SPEND_SCHEME, path: '/Enrichment spend by month.md' });

export class SpendDocument implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly ledger: SpendLedger) {
    this.subscription = ledger.onDidChange(() => this.changed.fire(SPEND_URI));
  }

  provideTextDocumentContent(): string {
    const { entries, skipped } = this.ledger.read();
    return spendMarkdown(spendByMonth(entries), this.ledger.file.path, skipped);
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}

export function spendMarkdown(months: readonly MonthSpend[], path: string, skipped: number): string {
  const lines = [
    '# Enrichment: spend by month',
    '',
    // One line: the editor wraps it to its width.
    'Paid transactions this extension recorded, by month (UTC, as invoices count them), service and operation. The `enrich` command and the MCP server keep a ledger of their own (`enrich spend`).',
  ];
  if (months.length === 0) lines.push('', 'No paid transaction recorded yet.');
  for (const { month, origins } of months) {
    const rows = origins.flatMap((o) => [
      ...o.operations.map((op) => [o.origin, op.title, count(op.transactions)]),
      // Per service only: the sandbox's spend and a real service's are not added together.
      ...(o.operations.length > 1 ? [[o.origin, 'all operations', count(o.transactions)]] : []),
    ]);
    lines.push('', `## ${month}`, '', ...table(['Service', 'Operation', 'Transactions'], rows));
  }
  lines.push('', `Ledger: \`${path}\`${skipped > 0 ? ` (${skippedText(skipped)})` : ''}.`, '');
  return lines.join('\n');
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function skippedText(n: number): string {
  return n === 1
    ? '1 line could not be read and was skipped'
    : `${count(n)} lines could not be read and were skipped`;
}

/** A Markdown table padded to read as a table in the editor too; the last column right-aligned. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, 3, ...rows.map((r) => (r[i] ?? '').length)));
  const last = header.length - 1;
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => (i === last ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0))).join(' | ')} |`;
  const rule = `| ${widths.map((w, i) => (i === last ? `${'-'.repeat(w - 1)}:` : '-'.repeat(w))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)];
}
