// The server's side of the spend ledger (@enrich/bulk's ledger-file.ts, shared with the CLI): every
// paid tool call and file run is recorded with client "mcp", so that `enrich spend` shows what the
// assistants spent beside the CLI's runs. A ledger that cannot be written is logged once (stderr)
// and the call goes on: the ledger is a record, not the spending.
import { type Bases, LedgerFile, SpendRecorder, spendOrigin } from '@enrich/bulk';
import { type Operation, originTotals, spendTotals } from '@enrich/core';

export class SpendLedger {
  private readonly file: LedgerFile;
  private warned = false;

  constructor(
    path: string,
    private readonly log: (text: string) => void,
  ) {
    this.file = new LedgerFile(path);
  }

  get path(): string {
    return this.file.path;
  }

  /** A recorder of one call or run; close() it when the call or run ends. */
  recorder(op: Operation, bases: Bases, file?: string): SpendRecorder {
    return new SpendRecorder({
      ledger: this.file,
      operation: op.id,
      origin: spendOrigin(op, bases),
      client: 'mcp',
      ...(file === undefined ? {} : { file }),
      onError: (error) => {
        if (this.warned) return;
        this.warned = true;
        this.log(
          `the spend ledger ${this.file.path} could not be written (${error.message}); spending is not recorded there.`,
        );
      },
    });
  }

  /** Records one paid call. */
  recordOne(op: Operation, bases: Bases): void {
    const recorder = this.recorder(op, bases);
    recorder.add(1);
    recorder.close();
  }

  /** What every client recorded this UTC month, per service; undefined when the ledger cannot be read. */
  thisMonth(now = new Date()): { origin: string; transactions: number }[] | undefined {
    try {
      const month = now.toISOString().slice(0, 7);
      return originTotals(spendTotals(this.file.read().entries, { by: 'month', since: month }));
    } catch {
      return undefined;
    }
  }
}
