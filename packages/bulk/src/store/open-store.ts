// openStore: the one place a client turns ENRICH_STORE / --store into a front. No URL: the journal
// file; postgres:// or postgresql://: the shared PostgreSQL store; anything else: a clear error that
// names ENRICH_STORE / --store and the accepted forms, and never repeats a password.
import { JournalFront, type JournalFrontOptions } from './journal-front.js';
import type { PostgresStoreOptions } from './postgres-store.js';
import type { StoreFront, StoreOptions } from './store-front.js';
import { storeUrlKind } from './store-url.js';

export interface OpenStoreOptions extends StoreOptions {
  /** The journal's own settings (its path above all), used when no URL is given. */
  readonly journal: Omit<JournalFrontOptions, keyof StoreOptions>;
  /** PostgreSQL's own settings (all have defaults), used with a postgres:// URL. */
  readonly postgres?: Omit<PostgresStoreOptions, keyof StoreOptions | 'url'>;
}

export async function openStore(url: string | undefined, options: OpenStoreOptions): Promise<StoreFront> {
  const { journal, postgres, ...common } = options;
  if (storeUrlKind(url) === 'journal') return JournalFront.open({ ...journal, ...common });
  // Loaded only when asked for: a client that keeps its journal never loads the driver.
  const { PostgresStore } = await import('./postgres-store.js');
  return PostgresStore.open({ ...postgres, ...common, url: url as string });
}
