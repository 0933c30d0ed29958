// @enrich/bulk: the bulk engine shared by the CLI and the VS Code extension (Node only).
// See packages/bulk/README.md for what a client passes and gets back.
export { AnswerStore, type AnswerStoreOptions, parseLine } from './answer-store.js';
export { BulkError, OutputInTheWay } from './bulk-error.js';
export type { BulkOptions } from './bulk-options.js';
export { CACHE_DIR_ENV, cacheFolder, PACE_FILE } from './cache-folder.js';
export {
  type CsvDelimiter,
  type CsvEncoding,
  type CsvLayout,
  ENCODINGS,
  outputHasBom,
} from './csv-layout.js';
export { checkRunFiles } from './file-guard.js';
export { type FileKind, kindOfContent, kindOfName } from './file-kind.js';
export { acquireLock } from './file-lock.js';
export { readFileStart } from './file-start.js';
export {
  type Bases,
  CACHE_FILE,
  cacheNamespace,
  defaultCachePath,
  defaultOutputPath,
  SANDBOX_NAMESPACE,
} from './files.js';
export * from './forget/index.js';
export { createHttpTransport } from './http-transport.js';
export {
  ClientLedger,
  LEDGER_ENV,
  LedgerFile,
  ledgerPath,
  namespaceOrigin,
  SANDBOX_ORIGIN,
  SpendRecorder,
  type SpendRecorderOptions,
  spendOrigin,
} from './ledger-file.js';
export { LedgerNotAFile } from './ledger-read.js';
export { readHeader } from './open-source.js';
export { type BulkPlan, type PlanOptions, planBulk } from './plan-bulk.js';
export { type BulkProgress, estimatedRows } from './progress.js';
export { isDocumented, isUnreadable } from './row-result.js';
export type { SourceChoice } from './row-source.js';
export { GRACE_MS, runBulk } from './run-bulk.js';
export { distinctFiles, realPath } from './same-file.js';
export { JournalFront, type JournalFrontOptions } from './store/journal-front.js';
export { type OpenStoreOptions, openStore } from './store/open-store.js';
export type { PostgresStoreOptions } from './store/postgres-store.js';
export { MAX_PER_MONTH_ENV, parseMonthlyCap } from './store/spend-rules.js';
export {
  type ClaimResult,
  type MonthlyCap,
  type SpendRequest,
  type SpendRow,
  type StoreFront,
  type StoreOptions,
  StoreUnavailable,
} from './store/store-front.js';
export { describePostgresUrl, STORE_ENV, storeUrlKind } from './store/store-url.js';
export { storeUrlSecrets } from './store-secrets.js';
export type { BulkSummary } from './summary.js';
export { readZipEntry } from './zip-file.js';
