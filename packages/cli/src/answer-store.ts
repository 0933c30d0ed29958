// The answer journal lives in the bulk engine. Opened from here, a cache another run holds is the
// command's usage error (exit 2), as for a bulk run.
import { type AnswerStoreOptions, AnswerStore as Store } from '@enrich/bulk';
import { usageError } from './bulk.js';

export { type AnswerStoreOptions, parseLine } from '@enrich/bulk';
export type AnswerStore = Store;

export const AnswerStore = {
  open(options: AnswerStoreOptions): Store {
    try {
      return Store.open(options);
    } catch (error) {
      throw usageError(error);
    }
  },
};
