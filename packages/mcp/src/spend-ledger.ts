// The server's side of the spend ledger (@enrich/bulk's ledger-file.ts, shared with the CLI): every
// paid tool call and file run is recorded with client "mcp", so that `enrich spend` shows what the
// assistants spent beside the CLI's runs. A ledger that cannot be written is logged once (stderr)
// and the call goes on: the ledger is a record, not the spending.
import { type Bases, ClientLedger, LedgerFile } from '@enrich/bulk';
import { type Operation, originTotals, spendTotals } from '@enrich/core';

/** The MCP server's side of the spend ledger (client `mcp`): a line per paid call, one per run. */
export class McpLedger {
  /** The server's side of the ledger: a file run records through it (bulk's BulkOptions.ledger). */
  readonly client: ClientLedger;
  private warned = false;

  constructor(path: string, log: (text: string) => void) {
    const file = new LedgerFile(path);
    this.client = new ClientLedger(file, 'mcp', (error) => {
      if (this.warned) return;
      this.warned = true;
      log(
        `the spend ledger ${file.path} could not be written (${error.message}); spending is not recorded there.`,
      );
    });
  }

  get path(): string {
    return this.client.file.path;
  }

  /** Records one paid call. */
  recordOne(op: Operation, bases: Bases): void {
    this.client.recordOne(op, bases);
  }

  /** What every client recorded this UTC month, per service; undefined when the ledger cannot be read. */
  thisMonth(now = new Date()): { origin: string; transactions: number }[] | undefined {
    try {
      const month = now.toISOString().slice(0, 7);
      return originTotals(spendTotals(this.client.file.read().entries, { by: 'month', since: month }));
    } catch {
      return undefined;
    }
  }
}
