// What a client used to wire by hand around every run, decided here once (issue 42): the defaults
// of the options (bulk-options.ts), the cache namespace and the key's settings from the one `bases`,
// the abandon controller whose signal must reach the transport, the Sender's options, and the spend
// ledger's recorder. The CLI, VS Code and the MCP server each keep only their own concerns (their
// UI, their confirmations, their files).
import { setMaxListeners } from 'node:events';
import { DEFAULT_RETRY_POLICY, outputColumns, type Settings } from '@enrich/core';
import { DEFAULT_MAX_AGE_MS } from '../forget/retention.js';
import { createHttpTransport } from '../sending/http-transport.js';
import type { SenderOptions } from '../sending/sender-options.js';
import { cacheNamespace } from '../store/files.js';
import type { SpendRecorder } from '../store/ledger-file.js';
import type { BulkOptions, FileOptions } from './bulk-options.js';

/** One attempt's deadline unless the client says otherwise: the CLI's --timeout default. */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** What a plan and a run read their answers by: the options' defaults and the namespace. */
export interface FileWiring {
  /** Whose answers the cache holds: named from the bases the requests go to (cacheNamespace). */
  readonly namespace: string;
  readonly maxAgeMs: number;
  readonly overrides: Readonly<Record<string, string>>;
  readonly now: () => number;
}

export function fileWiring(options: FileOptions): FileWiring {
  return {
    namespace: cacheNamespace(options.op, options.bases),
    maxAgeMs: options.maxAgeMs ?? DEFAULT_MAX_AGE_MS,
    overrides: options.overrides ?? {},
    now: options.now ?? Date.now,
  };
}

/** A run's options with every default applied and what follows from them worked out. */
export interface RunWiring extends FileWiring {
  readonly settings: Settings;
  readonly columns: readonly string[];
  /** Aborted when requests in flight are abandoned (after the grace); the transport obeys it. */
  readonly abandon: AbortController;
  /** The spend ledger's recorder of this run, when the client has a ledger. */
  readonly recorder: SpendRecorder | undefined;
  /** The ledger's path: a run never writes its output over it. */
  readonly ledgerPath: string | undefined;
}

export function runWiring(options: BulkOptions): RunWiring {
  const { op, bases, ledger } = options;
  const abandon = new AbortController();
  // Each request in flight listens for it (as many as the concurrency): not a leak.
  setMaxListeners(0, abandon.signal);
  return {
    ...fileWiring(options),
    settings: { apiKey: options.apiKey, baseUrl: bases.baseUrl, baseUrlV3: bases.baseUrlV3 },
    columns: options.columns ?? outputColumns(op),
    abandon,
    recorder: ledger?.recorder(op, bases, { file: options.ledgerName ?? options.inPath }),
    ledgerPath: ledger?.file.path,
  };
}

/**
 * The Sender's options: the client's choices with the defaults (the pace the service allows, core's
 * retry policy, Node's transport with its deadline and the run's abandon signal, the real clock),
 * and the run's own hooks.
 */
export function senderOptions(
  options: BulkOptions,
  wiring: RunWiring,
  run: Pick<SenderOptions, 'startFrom' | 'mayNotSend' | 'onPaid'>,
): SenderOptions {
  const { signal } = wiring.abandon;
  return {
    op: options.op,
    settings: wiring.settings,
    transport: options.transport
      ? options.transport(signal)
      : createHttpTransport({ timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS, signal }),
    policy: options.policy ?? DEFAULT_RETRY_POLICY,
    concurrency: options.concurrency ?? 'auto',
    maxConcurrency: options.maxConcurrency,
    maxRate: options.maxRate,
    maxTransactions: options.maxTransactions,
    sleep: options.sleep,
    now: wiring.now,
    ...(options.random ? { random: options.random } : {}),
    ...(options.defaultPauseMs === undefined ? {} : { defaultPauseMs: options.defaultPauseMs }),
    ...(options.failureLimit === undefined ? {} : { failureLimit: options.failureLimit }),
    ...(options.onRetry ? { onRetry: options.onRetry } : {}),
    abandonSignal: signal,
    ...run,
  };
}
