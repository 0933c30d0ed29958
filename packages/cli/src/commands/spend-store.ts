// `enrich spend --store [url]`: the shared answer store's spend table (bulk's store front): what
// every client and instance of the team spent through the store, per UTC month, service and
// operation, with a total per service, and the monthly caps the store keeps (every client enforces
// them). The store counts a transaction when it is reserved and gives it back when the call was not
// paid, so the table is what was bought (or may have been: a request sent whole that got no answer).
// The local ledger (`enrich spend`) is this machine's record. Services are named as the ledger names
// them (namespaceOrigin: the embedded sandbox's is its loopback origin), so core's rule keeps what a
// sandbox counted out of what may be billed, here as there.
import { type MonthlyCap, namespaceOrigin, STORE_ENV, type SpendRow as StoreSpendRow } from '@enrich/bulk';
import { grandTotals, type OperationId, originTotals, type SpendPeriod, type SpendRow } from '@enrich/core';
import { CommandError, EXIT, type ExitCode } from '../exit-codes.js';
import { closeStore, openSharedStore, storeUrl } from '../shared-store.js';
import { grouped, jsonText, printable } from '../terminal-text.js';

/** `enrich spend`'s flags, as this action reads them. */
interface StoreSpendFlags {
  readonly by: SpendPeriod;
  readonly since?: string;
  readonly json?: boolean;
  readonly csv?: boolean;
  readonly store?: string | true;
}

interface StoreSpendIo {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** spend.ts's table, given (not imported: spend.ts calls this). */
type Table = (
  rows: readonly SpendRow[],
  totals: ReturnType<typeof originTotals>,
  header: readonly string[],
) => string;

/** What the store holds: the spend rows from --since on, as the ledger names them, and the caps. */
interface StoreSpend {
  readonly where: string;
  readonly rows: SpendRow[];
  readonly caps: MonthlyCap[];
}

export async function storeSpendAction(
  flags: StoreSpendFlags,
  io: StoreSpendIo,
  table: Table,
): Promise<ExitCode> {
  checkStoreFlags(flags);
  const spend = await readStoreSpend(flags, io);
  if (flags.json) {
    io.stdout.write(`${jsonText(spendJson(spend, flags.since))}\n`);
  } else if (flags.csv) {
    io.stdout.write(`${spendCsv(spend.rows)}\n`);
    io.stderr.write(`From the shared answer store ${spend.where}; months in UTC.\n`);
  } else {
    io.stdout.write(`${spendLines(spend, flags.since, table).join('\n')}\n`);
  }
  return EXIT.ok;
}

/** The store counts by month: --by day, or a --since finer than a month, is refused. */
function checkStoreFlags(flags: StoreSpendFlags): void {
  if (flags.by !== 'month') {
    throw new CommandError(
      '--store reads the shared store, which counts by month: leave out --by day',
      EXIT.usage,
    );
  }
  if (flags.since !== undefined && flags.since.length !== 7) {
    throw new CommandError(
      'with --store, --since takes a month (YYYY-MM): the store counts by month',
      EXIT.usage,
    );
  }
}

/** Reads the store's spend and caps, then closes it (whether the reads worked or not). */
async function readStoreSpend(flags: StoreSpendFlags, io: StoreSpendIo): Promise<StoreSpend> {
  const url = storeUrl({ store: flags.store === undefined ? true : flags.store }, io.env);
  if (url === undefined) throw new CommandError(`--store needs a URL, or ${STORE_ENV} set`, EXIT.usage);
  // A front serves one namespace for its answers; the spend table it reads is every namespace's.
  const store = await openSharedStore(url, { namespace: 'enrich spend', maxAgeMs: 0 });
  let kept: StoreSpendRow[];
  let caps: MonthlyCap[];
  try {
    kept = await store.spend();
    caps = await store.monthlyCaps();
  } catch (error) {
    throw new CommandError(
      `the shared answer store's spend could not be read: ${(error as Error).message}`,
      EXIT.storage,
    );
  } finally {
    await closeStore(store, io.stderr);
  }
  const rows: SpendRow[] = kept
    .filter((row) => flags.since === undefined || row.month >= flags.since)
    .map((row) => ({
      period: row.month,
      origin: namespaceOrigin(row.namespace),
      operation: row.operation as OperationId,
      transactions: row.transactions,
    }));
  return { where: store.where, rows, caps };
}

/** `--json`: the rows, their totals per service and in all, and the caps. */
function spendJson({ where, rows, caps }: StoreSpend, since: string | undefined) {
  const totals = originTotals(rows);
  return {
    store: where,
    timeZone: 'UTC',
    by: 'month',
    since: since ?? null,
    rows,
    totals,
    transactions: totals.reduce((sum, t) => sum + t.transactions, 0),
    ...grandTotals(rows),
    caps: caps.map((cap) => ({ ...cap, service: namespaceOrigin(cap.namespace) })),
  };
}

/**
 * The rows as CSV, the same columns from the ledger and from the store, so that one script reads
 * both. Origins and operation ids hold no comma, quote or line break (core checks every line's
 * shape; the store keeps what the clients' namespaces are).
 */
export function spendCsv(rows: readonly SpendRow[]): string {
  const lines = [
    'period,origin,operation,transactions',
    ...rows.map((r) => [r.period, r.origin, r.operation, r.transactions].join(',')),
  ];
  return lines.join('\n');
}

/** The table a person reads: where the store is, the spend (or that there is none), the caps. */
function spendLines({ where, rows, caps }: StoreSpend, since: string | undefined, table: Table): string[] {
  const lines = [`Shared answer store: ${where}`];
  if (rows.length === 0) {
    lines.push(since ? `No transactions are recorded since ${since}.` : 'No transactions are recorded yet.');
  } else {
    lines.push(
      `Transactions by month (UTC), per service and operation, every client of the store${since ? `, since ${since}` : ''}:`,
      '',
      table(rows, originTotals(rows), ['month', 'service', 'operation', 'transactions']),
    );
  }
  lines.push(...capLines(caps));
  return lines;
}

/** The caps the store keeps, one line each; the namespace is what the bulk README's UPDATE names. */
function capLines(caps: readonly MonthlyCap[]): string[] {
  if (caps.length === 0) return [];
  const line = ({ namespace, maxTransactionsPerMonth }: MonthlyCap) => {
    const service = namespaceOrigin(namespace);
    const named = service === namespace ? '' : ` (namespace ${namespace})`;
    return `  ${printable(`${service}${named}`)}: ${grouped(maxTransactionsPerMonth)} transactions a month (UTC)`;
  };
  return [
    '',
    'Monthly caps kept in the store (every client enforces them; the lowest one set wins):',
    ...caps.map(line),
  ];
}
