// @enrich/bulk: the bulk engine shared by the CLI and the VS Code extension (Node only).
// See packages/bulk/README.md for what a client passes and gets back.

export { type CallCache, heldCache, type Kept, keepAnswer } from './call/call-cache.js';
export {
  type CallSteps,
  type Held,
  type OneCall,
  OneCalls,
  type Refusal,
  type SharedFront,
} from './call/one-call.js';
export * from './forget/index.js';
export {
  type CsvDelimiter,
  type CsvEncoding,
  type CsvLayout,
  ENCODINGS,
  outputHasBom,
} from './formats/csv-layout.js';
export { type FileKind, kindOfContent, kindOfName } from './formats/file-kind.js';
export { readFileStart } from './formats/file-start.js';
export { readHeader } from './formats/open-source.js';
export type { SourceChoice } from './formats/row-source.js';
export { readZipEntry } from './formats/zip-file.js';
export { BulkError, OutputInTheWay } from './run/bulk-error.js';
export type { BulkOptions, FileOptions } from './run/bulk-options.js';
export { checkRunFiles } from './run/file-guard.js';
export { type BulkPlan, type PlanOptions, planBulk } from './run/plan-bulk.js';
export { type BulkProgress, estimatedRows } from './run/progress.js';
export { isDocumented, isUnreadable } from './run/row-result.js';
export { GRACE_MS, runBulk } from './run/run-bulk.js';
export { distinctFiles, realPath } from './run/same-file.js';
export type { BulkSummary } from './run/summary.js';
export { createHttpTransport } from './sending/http-transport.js';
export { AnswerStore, type AnswerStoreOptions, parseLine } from './store/answer-store.js';
export { CACHE_DIR_ENV, cacheFolder, PACE_FILE } from './store/cache-folder.js';
export { acquireLock, CacheInUse, FileInUse, whileInUse } from './store/file-lock.js';
export {
  type Bases,
  CACHE_FILE,
  cacheNamespace,
  defaultCachePath,
  defaultOutputPath,
  SANDBOX_NAMESPACE,
} from './store/files.js';
export { JournalFront, type JournalFrontOptions } from './store/journal-front.js';
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
} from './store/ledger-file.js';
export { LedgerNotAFile } from './store/ledger-read.js';
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
export { storeUrlSecrets } from './store/store-secrets.js';
export { describePostgresUrl, STORE_ENV, storeUrlKind } from './store/store-url.js';
