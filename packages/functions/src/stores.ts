// The answer store's fronts this server buys through: one per service namespace (the v2 and the v3
// operations go to two bases, so to two namespaces unless both bases are one service), opened at
// start through @enrich/bulk's openStore, so that a store that cannot be reached or migrated stops
// the deployment at once. With a URL (--store / ENRICH_STORE) every instance shares it; without one,
// each namespace has a journal file of its own in the cache folder (a journal is locked by the
// process that writes it, and one front holds one namespace).
import { join } from 'node:path';
import { type Bases, cacheNamespace, openStore, type StoreFront } from '@enrich/bulk';
import { OPERATIONS, type Operation } from '@enrich/core';

export interface StoresOptions {
  readonly bases: Bases;
  readonly storeUrl: string | undefined;
  readonly cacheDir: string;
  readonly maxAgeMs: number;
  readonly maxTransactionsPerMonth: number | undefined;
  readonly scrub: (text: string) => string;
}

export class Stores {
  private constructor(
    private readonly bases: Bases,
    private readonly fronts: ReadonlyMap<string, StoreFront>,
  ) {}

  static async open(options: StoresOptions): Promise<Stores> {
    const namespaces = [...new Set(OPERATIONS.map((op) => cacheNamespace(op, options.bases)))];
    const fronts = new Map<string, StoreFront>();
    try {
      for (const namespace of namespaces) {
        const front = await openStore(options.storeUrl, {
          namespace,
          maxAgeMs: options.maxAgeMs,
          ...(options.maxTransactionsPerMonth === undefined
            ? {}
            : { maxTransactionsPerMonth: options.maxTransactionsPerMonth }),
          journal: { path: journalPath(options.cacheDir, namespace), scrub: options.scrub },
        });
        fronts.set(namespace, front);
      }
    } catch (error) {
      await Promise.allSettled([...fronts.values()].map((front) => front.close()));
      throw error;
    }
    return new Stores(options.bases, fronts);
  }

  /** The front of the operation's service. */
  for(op: Operation): StoreFront {
    const front = this.fronts.get(cacheNamespace(op, this.bases));
    if (!front) throw new Error(`no answer store is open for ${op.id}`);
    return front;
  }

  /** Where the answers are, in words (no password). */
  get where(): string {
    return [...new Set([...this.fronts.values()].map((front) => front.where))].join('; ');
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.fronts.values()].map((front) => front.close()));
  }
}

/** `functions-api.tdg1.io.jsonl`: the namespace made a file name (sandbox: `functions-sandbox.jsonl`). */
export function journalPath(cacheDir: string, namespace: string): string {
  const name = namespace.replace(/^[a-z]+:\/\//, '').replace(/[^A-Za-z0-9.-]+/g, '-');
  return join(cacheDir, `functions-${name}.jsonl`);
}
