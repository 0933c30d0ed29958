// The server's side of the local spend ledger (@enrich/bulk's ledger-file.ts, shared with the CLI
// and the MCP server): every paid transaction is counted with client "functions" by a recorder per
// operation, written at most every 2 s and at close, so a server that buys thousands an hour writes
// a few lines a minute. The store's spend table is the record every instance shares; this one is the
// machine's own, read by `enrich spend`. A ledger that cannot be written is said once; buying goes on.
import { type Bases, ClientLedger, LedgerFile, type SpendRecorder } from '@enrich/bulk';
import type { Operation } from '@enrich/core';

/** The functions server's side of the spend ledger (client `functions`): a batched recorder per operation. */
export class FunctionsLedger {
  private readonly ledger: ClientLedger;
  private readonly recorders = new Map<string, SpendRecorder>();
  private warned = false;

  constructor(
    path: string,
    private readonly bases: Bases,
    log: (text: string) => void,
  ) {
    const file = new LedgerFile(path);
    this.ledger = new ClientLedger(file, 'functions', (error) => {
      if (this.warned) return;
      this.warned = true;
      log(
        `the spend ledger ${file.path} could not be written (${error.message}); spending is not recorded there.`,
      );
    });
  }

  /** One paid transaction of `op`. */
  paid(op: Operation): void {
    let recorder = this.recorders.get(op.id);
    if (!recorder) {
      recorder = this.ledger.recorder(op, this.bases);
      this.recorders.set(op.id, recorder);
    }
    recorder.add(1);
  }

  /** Writes what is pending. */
  close(): void {
    for (const recorder of this.recorders.values()) recorder.close();
  }
}
