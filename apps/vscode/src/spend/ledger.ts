// VS Code's own spend ledger: every paid transaction the extension makes (a palette or chat call,
// a History re-run, an Enrich File run) appended as a line of core's ledger format to `ledger.jsonl`
// in the extension's global storage, client "vscode". The file and the recorder are the bulk
// engine's (ledger-file.ts), which the CLI and the MCP server use for theirs: the same lines, the
// same safety when two windows append at once.
//
// A line holds no personal data: when, which operation, the service's origin, a run id (a call's
// History id, or a run's random one) and, for a run, the input file's base name. What is paid is
// core's isPaid, counted by the caller (call/send.ts) or the engine (its onPaid hook).
//
// The ledger is a record of spending, not the spending: a file that cannot be written is said once
// in the log and a warning, and the call or run goes on.
import { join } from 'node:path';
import { type Bases, ClientLedger, LedgerFile } from '@enrich/bulk';
import type { LedgerEntry, LedgerRead, Operation } from '@enrich/core';
import * as vscode from 'vscode';
import type { Log } from '../log';

export const LEDGER_FILE = 'ledger.jsonl';

/** Tells the views after each line, whoever appended it (a call here, or a run's recorder). */
class WatchedLedger extends LedgerFile {
  constructor(
    path: string,
    private readonly appended: () => void,
  ) {
    super(path);
  }

  override append(entry: LedgerEntry): void {
    super.append(entry);
    this.appended();
  }
}

export class SpendLedger implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;
  readonly file: LedgerFile;
  /** The extension's side of the ledger: an Enrich File run records through it (bulk's BulkOptions.ledger). */
  readonly client: ClientLedger;
  private warned = false;

  constructor(
    storage: vscode.Uri,
    private readonly log: Log,
  ) {
    this.file = new WatchedLedger(join(storage.fsPath, LEDGER_FILE), () => this.changed.fire());
    this.client = new ClientLedger(this.file, 'vscode', (error) => this.failed(error));
  }

  /** One paid call: a line of its own, its run the History entry's id. */
  recordCall(op: Operation, bases: Bases, entryId: string): void {
    this.client.recordOne(op, bases, entryId);
  }

  /** What the ledger holds; a file that cannot be read reads as empty, and is said. */
  read(): LedgerRead {
    try {
      return this.file.read();
    } catch (error) {
      this.failed(error as Error);
      return { entries: [], skipped: 0 };
    }
  }

  private failed(error: Error): void {
    const message = `Spend ledger ${this.file.path}: ${error.message}`;
    this.log.warn(message);
    if (this.warned) return;
    this.warned = true;
    void vscode.window.showWarningMessage(
      `Enrichment could not use its spend ledger (${error.message}). Calls and runs go on; the Spend view may miss them.`,
    );
  }

  dispose(): void {
    this.changed.dispose();
  }
}
