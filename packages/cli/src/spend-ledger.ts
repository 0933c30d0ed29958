// The CLI's side of the spend ledger (@enrich/bulk's ledger-file.ts): every paid transaction a
// command makes is recorded, with client "cli", the origin of the service the call went to, and, for
// a file, the input's base name. The ledger is a record, not the spending: one that cannot be
// written is said once on stderr, and the command carries on.
import { homedir } from 'node:os';
import { type Bases, ClientLedger, LedgerFile, ledgerPath } from '@enrich/bulk';
import type { Operation } from '@enrich/core';

export interface LedgerIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stderr: NodeJS.WritableStream;
}

/** The user's ledger: ENRICH_LEDGER, else the platform's data folder. */
export function cliLedger(io: Pick<LedgerIo, 'env'>): LedgerFile {
  return new LedgerFile(ledgerPath(io.env, process.platform, homedir()));
}

// Paths already warned about in this process: a demo's two runs say it once.
const warned = new Set<string>();

/** The CLI's side of the user's ledger (a bulk run records through it: bulk's BulkOptions.ledger). */
export function clientLedger(io: LedgerIo): ClientLedger {
  const file = cliLedger(io);
  return new ClientLedger(file, 'cli', (error) => {
    if (warned.has(file.path)) return;
    warned.add(file.path);
    io.stderr.write(
      `Warning: the spend ledger ${file.path} could not be written (${error.message}); what was spent is not recorded there (the answer cache keeps every answer). Set ENRICH_LEDGER to another file to keep the record.\n`,
    );
  });
}

/** Records one paid call. */
export function recordSpend(io: LedgerIo, op: Operation, bases: Bases): void {
  clientLedger(io).recordOne(op, bases);
}
