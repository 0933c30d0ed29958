// What a client passes to runBulk: the files, the operation and columns, how to send, and the hooks
// through which it follows and stops the run.
import type { Operation } from '@enrich/core';
import type { SourceChoice } from '../formats/row-source.js';
import type { SenderOptions } from '../sending/sender.js';
import type { StoreFront } from '../store/store-front.js';
import type { BulkProgress } from './progress.js';
import type { Refuse } from './row-planner.js';

export interface BulkOptions {
  readonly op: Operation;
  readonly inPath: string;
  readonly outPath: string;
  readonly cachePath: string;
  /** How to name the three files in the summary (as the user gave them); the paths by default. */
  readonly display?: (path: string) => string;
  /** Which service answered: answers of another one are never reused (see cacheNamespace). */
  readonly namespace: string;
  readonly maxAgeMs: number;
  /** Output columns, as core's chooseColumns gives them (core's outputColumns(op) for all). */
  readonly columns: readonly string[];
  /** Field -> column name, where the automatic mapping is not what the user wants. */
  readonly overrides: Readonly<Record<string, string>>;
  /** How requests are sent: settings (key, bases), transport, retry policy, concurrency, budget. */
  readonly sender: Omit<SenderOptions, 'op' | 'abandonSignal' | 'mayNotSend' | 'onPaid'>;
  /**
   * The file that keeps the pace of the last run per service and key (pace-memory.ts; clients keep
   * it in the user's cache folder, cache-folder.ts): with concurrency 'auto', the run starts from
   * it and leaves its own. Undefined: every run climbs from the start, and nothing is kept.
   */
  readonly pacePath?: string | undefined;
  /** Rows held while waiting for an answer before reading pauses. */
  readonly windowRows?: number;
  /** Answers kept in memory; the rest are read back from the cache file. */
  readonly memoryAnswers?: number;
  /** How long requests in flight may still answer after the signal (then they are abandoned). */
  readonly graceMs?: number;
  /** Aborted to abandon requests in flight; give the transport its signal too, to close them. */
  readonly abandon?: AbortController;
  /** Applied to every string written: journal lines, the output (the key scrubber). */
  readonly scrub?: (text: string) => string;
  /** Add a column for every field an answer has that the description does not list. */
  readonly allExtras?: boolean;
  /** Ask again (and pay again) for requests whose cached answer is paid-unreadable. */
  readonly retryUnreadable?: boolean;
  /** A CSV's encoding and separator, a workbook's sheet, where the user chose them (else found). */
  readonly layout?: SourceChoice;
  /** Replace an existing output that is not one of ours (a file of the user's: refused otherwise). */
  readonly force?: boolean;
  /** The spend ledger the client records to: never replaced by the output (file-guard.ts). */
  readonly ledgerPath?: string;
  /** Where answers that could not be journaled go (default: the temp directory). */
  readonly rescueDir?: string;
  /**
   * A shared answer store (PostgreSQL: one team, every client and instance), opened by the client
   * for this run's namespace and closed by it after the run. The journal stays the local cache and
   * resume journal; each request it does not answer is claimed in the store before it is sent
   * (store-claims.ts).
   */
  readonly sharedStore?: StoreFront | undefined;
  /**
   * Requests not to send: a person forgotten at their request (core's SuppressionCheck.refusal, the
   * user's list and the shared store's). Their rows are invalid with the reason; nothing is sent
   * for them and nothing kept, even when the journal still holds their answer.
   */
  readonly refuse?: Refuse | undefined;
}

export interface BulkHooks {
  /** Stops the run: nothing more is sent, requests in flight get graceMs, the output is not written. */
  readonly signal?: AbortSignal;
  /** Called every progressEveryMs while the run goes on, and once at the end. */
  readonly onProgress?: (progress: BulkProgress) => void;
  readonly progressEveryMs?: number;
  /** Told of each paid transaction as the run counts it (a client's spend ledger). */
  readonly onPaid?: (count: number) => void;
}
