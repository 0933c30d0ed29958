// The shared answer store (--store / ENRICH_STORE: PostgreSQL), which a team's clients share so
// that a person is bought once whichever client asked first: the CLI, other assistants' servers,
// the warehouse functions. One front per service namespace (bulk's openStore; the v2 and v3
// operations may go to two services), opened at its first use and kept until the server stops. A
// store that cannot be opened is said in the tool's result (nothing is sent), and asked again at the
// next call: the database may be back.
import {
  type Bases,
  cacheNamespace,
  openStore,
  type SharedFront,
  type StoreFront,
  StoreUnavailable,
} from '@enrich/bulk';
import { getOperation } from '@enrich/core';

export interface SharedStoresOptions {
  readonly url: string;
  readonly maxAgeMs: number;
  readonly maxTransactionsPerMonth: number | undefined;
}

export class SharedStores {
  private readonly fronts = new Map<string, Promise<StoreFront>>();
  private closed = false;

  constructor(private readonly options: SharedStoresOptions) {}

  /** The front of a namespace, opened at its first use. */
  async for(namespace: string): Promise<SharedFront> {
    if (this.closed) return { problem: 'the server is stopping' };
    let opening = this.fronts.get(namespace);
    if (!opening) {
      opening = this.open(namespace);
      this.fronts.set(namespace, opening);
    }
    try {
      return { front: await opening };
    } catch (error) {
      // Not kept: the next call tries again.
      if (this.fronts.get(namespace) === opening) this.fronts.delete(namespace);
      const message =
        error instanceof StoreUnavailable || error instanceof RangeError ? error.message : String(error);
      return { problem: `the shared answer store could not be opened: ${message}` };
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    const fronts = [...this.fronts.values()];
    this.fronts.clear();
    await Promise.allSettled(fronts.map(async (opening) => (await opening).close()));
  }

  private open(namespace: string): Promise<StoreFront> {
    const { url, maxAgeMs, maxTransactionsPerMonth } = this.options;
    return openStore(url, {
      namespace,
      maxAgeMs,
      ...(maxTransactionsPerMonth === undefined ? {} : { maxTransactionsPerMonth }),
      // Never used: a URL names PostgreSQL or is refused at start (config.ts).
      journal: { path: '' },
    });
  }
}

/** The store's spend this UTC month, every client of the team counted, for the spend tool. */
export async function storeThisMonth(
  stores: SharedStores,
  bases: Bases,
): Promise<{ where?: string; transactions?: { service: string; transactions: number }[]; text: string }> {
  // The spend table is every service's: the front of any namespace reads it.
  const opened = await stores.for(cacheNamespace(getOperation('phone-lookup'), bases));
  if ('problem' in opened)
    return { text: `The shared answer store's spend could not be read: ${opened.problem}.` };
  const { front } = opened;
  try {
    const month = new Date().toISOString().slice(0, 7);
    const totals = new Map<string, number>();
    for (const row of await front.spend()) {
      if (row.month === month) totals.set(row.namespace, (totals.get(row.namespace) ?? 0) + row.transactions);
    }
    const transactions = [...totals].map(([service, n]) => ({ service, transactions: n }));
    const said =
      transactions.length === 0
        ? 'nothing'
        : transactions.map((t) => `${t.transactions} at ${t.service}`).join(', ');
    return {
      where: front.where,
      transactions,
      text: `The shared answer store (${front.where}) records this UTC month, every client of the team: ${said} (\`enrich spend --store\` shows it by operation).`,
    };
  } catch (error) {
    return { text: `The shared answer store's spend could not be read: ${(error as Error).message}.` };
  }
}
