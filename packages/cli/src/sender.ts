// The default cap on a Retry-After wait (a longer one stops the run): the engine's.
export { MAX_RETRY_AFTER_MS } from '@enrich/bulk';
