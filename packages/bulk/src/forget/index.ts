// Forgetting a person, what is held on them, and how long answers are kept (issue 38): what the
// clients call. See packages/bulk/README.md, "Forget a person".

export type { Refuse } from '../run/row-planner.js';
export { removeAbandoned, replaceFile } from './aside-file.js';
export {
  noteCompacted,
  type RegisteredCache,
  registerCache,
  registeredCaches,
  registryPath,
} from './cache-registry.js';
export {
  DATA_DIR_ENV,
  dataFolder,
  FORGET_LOG_FILE,
  REGISTRY_FILE,
  RETENTION_FILE,
  SUPPRESSION_FILE,
} from './data-folder.js';
export {
  forgetLogPath,
  LOG_KEPT_MONTHS,
  type LogEntry,
  readForgetLog,
  type StoreReport,
} from './forget-log.js';
export {
  type ForgetReport,
  forgetEverywhere,
  heldEverywhere,
  kindCounts,
  type PrivacyTargets,
  pruneEverywhere,
  type UndoReport,
  undoForget,
} from './forget-person.js';
export { type Drop, type RewriteResult, rewriteJournal } from './journal-rewrite.js';
export { type KeptCache, keepCache } from './keep-cache.js';
export { type HeldAnswer, journalName, type LocalStores, localJournals } from './local-stores.js';
export { type PeopleRead, readPeople } from './people-file.js';
export type { SharedPrivacy } from './postgres-privacy.js';
export {
  DEFAULT_MAX_AGE_MS,
  DEFAULT_RETENTION_DAYS,
  MAX_RETENTION_DAYS,
  MIN_RETENTION_DAYS,
  retentionDays,
  retentionMs,
  retentionProblem,
  setRetentionDays,
} from './retention.js';
export type { ScheduledPrune } from './scheduled-prune.js';
export {
  type PgPrivacy,
  postgresPrivacy,
  pruneSharedOnSchedule,
  readSharedSuppression,
  type SharedTarget,
  sharedTarget,
} from './shared-driver.js';
export {
  loadSuppression,
  nodeHmac,
  readSuppression,
  suppressedEntries,
  suppressionPath,
} from './suppression-file.js';
