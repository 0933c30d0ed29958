// What a client passes to planBulk and runBulk: one flat shape, with defaults for everything a
// client has no reason to choose (run-wiring.ts applies them and wires the rest: the cache
// namespace and the key's settings from the bases, the abandon signal the transport gets, the
// Sender's options, the spend ledger's recorder). A client says which file, which operation, which
// service with which key, and what its user chose; nothing else.
import type { CallError, Operation, RetryPolicy, Transport } from '@enrich/core';
import type { SourceChoice } from '../formats/row-source.js';
import type { Bases } from '../store/files.js';
import type { ClientLedger } from '../store/ledger-file.js';
import type { StoreFront } from '../store/store-front.js';
import type { BulkProgress } from './progress.js';
import type { Refuse } from './row-planner.js';

/** What a plan and a run share: the input, the operation, the service, the answers they may reuse. */
export interface FileOptions {
  readonly op: Operation;
  readonly inPath: string;
  readonly cachePath: string;
  /**
   * Where requests go. They also name the answers the cache holds (cacheNamespace: another
   * service's are never reused) and the spend ledger's origin, so these can never disagree.
   */
  readonly bases: Bases;
  /** Cached answers older than this are asked again (default: DEFAULT_MAX_AGE_MS, 30 days). */
  readonly maxAgeMs?: number | undefined;
  /** Field -> column name, where the automatic mapping is not what the user wants. */
  readonly overrides?: Readonly<Record<string, string>> | undefined;
  /** The budget: a plan counts at most this many, a run spends at most this many. */
  readonly maxTransactions?: number | undefined;
  /** A CSV's encoding and separator, a workbook's sheet, where the user chose them (else found). */
  readonly layout?: SourceChoice | undefined;
  /** Ask again (and pay again) for requests whose cached answer is paid-unreadable. */
  readonly retryUnreadable?: boolean | undefined;
  /** How to name the files in the summary (as the user gave them); the paths by default. */
  readonly display?: ((path: string) => string) | undefined;
  /**
   * A shared answer store (PostgreSQL: one team, every client and instance), opened by the client
   * for this run's namespace and closed by it after the run. The journal stays the local cache and
   * resume journal; each request it does not answer is claimed in the store before it is sent
   * (store-claims.ts). A plan counts what it holds as free.
   */
  readonly sharedStore?: StoreFront | undefined;
  /**
   * Requests not to send: a person forgotten at their request (core's SuppressionCheck.refusal, the
   * user's list and the shared store's). Their rows are invalid with the reason; nothing is sent
   * for them and nothing kept, even when the journal still holds their answer.
   */
  readonly refuse?: Refuse | undefined;
  /** The clock (epoch ms): answers' ages, the run's time. Date.now by default. */
  readonly now?: (() => number) | undefined;
}

export interface BulkOptions extends FileOptions {
  readonly outPath: string;
  /** The key; the requests go to `bases` with it. */
  readonly apiKey: string;
  /** Output columns, as core's chooseColumns gives them (default: core's outputColumns(op), all). */
  readonly columns?: readonly string[] | undefined;
  /** Add a column for every field an answer has that the description does not list (default true). */
  readonly allExtras?: boolean | undefined;
  /** Replace an existing output that is not one of ours (a file of the user's: refused otherwise). */
  readonly force?: boolean | undefined;
  /** Applied to every string written: journal lines, the output (the key scrubber). */
  readonly scrub?: ((text: string) => string) | undefined;

  // How requests are sent.
  /** Requests in flight: a fixed number, or 'auto' (the default) for the pace the service allows. */
  readonly concurrency?: number | 'auto' | undefined;
  /** With 'auto': the most in flight (core's default, 64, if undefined). */
  readonly maxConcurrency?: number | undefined;
  /** Requests (attempts) per second never exceeded, or undefined for no such cap. */
  readonly maxRate?: number | undefined;
  /** One attempt's deadline, headers and body (default 30 s, the CLI's --timeout). */
  readonly timeoutMs?: number | undefined;
  /** Core's retry policy (default DEFAULT_RETRY_POLICY). */
  readonly policy?: RetryPolicy | undefined;
  /**
   * The file that keeps the pace of the last run per service and key (pace-memory.ts; clients keep
   * it in the user's cache folder, cache-folder.ts): with concurrency 'auto', the run starts from
   * it and leaves its own. Undefined: every run climbs from the start, and nothing is kept.
   */
  readonly pacePath?: string | undefined;
  /**
   * The transport, given the signal that abandons requests in flight (which it must obey). Default:
   * createHttpTransport over Node's http/https with `timeoutMs`. Tests pass core's fetch transport.
   */
  readonly transport?: ((abandon: AbortSignal) => Transport) | undefined;
  readonly sleep?: ((ms: number) => Promise<void>) | undefined;
  readonly random?: (() => number) | undefined;
  /** A 429 without Retry-After pauses the run this long. */
  readonly defaultPauseMs?: number | undefined;
  /** Consecutive requests that end in a server or network error before the run stops sending. */
  readonly failureLimit?: number | undefined;
  readonly onRetry?: ((info: { delayMs: number; error: CallError }) => void) | undefined;

  // Following and stopping the run.
  /** Stops the run: nothing more is sent, requests in flight get graceMs, the output is not written. */
  readonly signal?: AbortSignal | undefined;
  /** How long requests in flight may still answer after the signal (then they are abandoned). */
  readonly graceMs?: number | undefined;
  /** Called every progressEveryMs while the run goes on, and once at the end. */
  readonly onProgress?: ((progress: BulkProgress) => void) | undefined;
  readonly progressEveryMs?: number | undefined;
  /**
   * The client's spend ledger: the run records each paid transaction there as it counts it (a
   * line every 2 s and at the end; a client about to exit before the end calls its flush()), with
   * the input's base name (`ledgerName`, default `inPath`: `-` for standard input). The output
   * never replaces it (file-guard.ts).
   */
  readonly ledger?: ClientLedger | undefined;
  readonly ledgerName?: string | undefined;
  /** Told of each paid transaction as the run counts it (beside the ledger). */
  readonly onPaid?: ((count: number) => void) | undefined;

  // The engine's own sizes, for its tests.
  /** Rows held while waiting for an answer before reading pauses. */
  readonly windowRows?: number | undefined;
  /** Answers kept in memory; the rest are read back from the cache file. */
  readonly memoryAnswers?: number | undefined;
  /** Where answers that could not be journaled go (default: the temp directory). */
  readonly rescueDir?: string | undefined;
}
