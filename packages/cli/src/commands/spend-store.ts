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

export async function storeSpendAction(
  flags: StoreSpendFlags,
  io: StoreSpendIo,
  table: Table,
): Promise<ExitCode> {
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
  const totals = originTotals(rows);
  const transactions = totals.reduce((sum, t) => sum + t.transactions, 0);
  if (flags.json) {
    const json = {
      store: store.where,
      timeZone: 'UTC',
      by: 'month',
      since: flags.since ?? null,
      rows,
      totals,
      transactions,
      ...grandTotals(rows),
      caps: caps.map((cap) => ({ ...cap, service: namespaceOrigin(cap.namespace) })),
    };
    io.stdout.write(`${jsonText(json)}\n`);
    return EXIT.ok;
  }
  if (flags.csv) {
    const lines = [
      'month,service,operation,transactions',
      ...rows.map((r) => [r.period, r.origin, r.operation, r.transactions].join(',')),
    ];
    io.stdout.write(`${lines.join('\n')}\n`);
    io.stderr.write(`From the shared answer store ${store.where}; months in UTC.\n`);
    return EXIT.ok;
  }
  const lines = [`Shared answer store: ${store.where}`];
  if (rows.length === 0) {
    lines.push(
      flags.since
        ? `No transactions are recorded since ${flags.since}.`
        : 'No transactions are recorded yet.',
    );
  } else {
    lines.push(
      `Transactions by month (UTC), per service and operation, every client of the store${flags.since ? `, since ${flags.since}` : ''}:`,
      '',
      table(rows, totals, ['month', 'service', 'operation', 'transactions']),
    );
  }
  lines.push(...capLines(caps));
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
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
