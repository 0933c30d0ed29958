// @enrich/bulk: the bulk engine shared by the CLI and the VS Code extension (Node only).
// See packages/bulk/README.md for what a client passes and gets back.
export {
  AnswerStore,
  type AnswerStoreOptions,
  parseLine,
  rescuePathFor,
  type SaveReport,
} from './answer-store.js';
export { BulkError, OutputInTheWay } from './bulk-error.js';
export type { BulkHooks, BulkOptions } from './bulk-options.js';
export {
  type CsvDelimiter,
  type CsvEncoding,
  type CsvLayout,
  DELIMITERS,
  ENCODINGS,
  type LayoutChoice,
  layoutText,
  outputHasBom,
} from './csv-layout.js';
export { type FileKind, kindOfContent, kindOfName } from './file-kind.js';
export { acquireLock, type FileLock, isRunning, readHolder, startTimeOf } from './file-lock.js';
export { readFileStart } from './file-start.js';
export {
  type Bases,
  CACHE_FILE,
  cacheNamespace,
  defaultCachePath,
  defaultOutputPath,
  legacyNamespaces,
  normaliseBase,
  SANDBOX_NAMESPACE,
} from './files.js';
export { createHttpTransport, type HttpTransportOptions } from './http-transport.js';
export {
  LEDGER_ENV,
  LedgerFile,
  ledgerPath,
  SANDBOX_ORIGIN,
  SpendRecorder,
  type SpendRecorderOptions,
  spendOrigin,
} from './ledger-file.js';
export { readHeader } from './open-source.js';
export { outputHeader } from './output-columns.js';
export { type BulkPlan, type PlanOptions, planBulk } from './plan-bulk.js';
export { type BulkProgress, estimatedRows } from './progress.js';
export {
  invalidResult,
  isDocumented,
  isUnreadable,
  neutralise,
  type ResultKind,
  type RowResult,
  resultOf,
  UNREADABLE_STATUS,
} from './row-result.js';
export type { SourceChoice } from './row-source.js';
export { GRACE_MS, runBulk } from './run-bulk.js';
export { distinctFiles, realPath } from './same-file.js';
export { MAX_RETRY_AFTER_MS, type PaceSummary, type SenderOptions, type StopReason } from './sender.js';
export { type BulkSummary, type InvalidExample, rowsWritten } from './summary.js';
export { OrderedWindow, type Pending } from './window.js';
