// `enrich <operation> --Phone 5550102030`: one call, its record as a table (or JSON). With --cache,
// an answer already in the answer cache is printed without a call, and a new paid one is kept.
import { resolve } from 'node:path';
import {
  AnswerStore,
  type AnswerStoreOptions,
  heldCache,
  isUnreadable,
  OneCalls,
  type Refuse,
  type StoreFront,
} from '@enrich/bulk';
import {
  abortableSleep,
  type CleanInput,
  callOperation,
  type Operation,
  type Outcome,
  type RetryPolicy,
} from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import { answerNamespace, type ConnectIo, type ConnectionFlags, connect, endpoints } from '../connection.js';
import type { ExitCode } from '../exit-codes.js';
import { runPrivacy } from '../privacy.js';
import type { Scrub } from '../scrub-io.js';
import {
  closeStore,
  monthlyCap,
  openSharedStore,
  type OpenOptions as SharedStoreOptions,
  storeUrl,
} from '../shared-store.js';
import { recordSpend } from '../spend-ledger.js';
import { type OneOffShown, said } from './one-off-output.js';
import { type OperationFlags, retryPolicyOf } from './operation.js';

interface OneOffOptions extends OneOffShown {
  readonly input: Readonly<Record<string, string>>;
  /** The service's namespace in the answer cache and the shared store. */
  readonly namespace: string;
  readonly policy: RetryPolicy;
  readonly timeoutMs: number;
  /** With --cache: an answer already there is printed without a call; a new one is kept. */
  readonly cache: AnswerStoreOptions | undefined;
  /** Ask again when the cached answer is paid-unreadable. */
  readonly retryUnreadable?: boolean;
  /** The shared answer store (--store / ENRICH_STORE), opened once the input is known to be valid. */
  readonly shared: { readonly url: string; readonly options: SharedStoreOptions } | undefined;
  readonly io: ConnectIo & { readonly stdout: NodeJS.WritableStream; readonly cwd: string };
}

/** The action of an operation's command given field values: checks, calls (or reads the cache), prints. */
export function oneOffAction(
  op: Operation,
  flags: OperationFlags,
  input: Readonly<Record<string, string>>,
  io: OneOffOptions['io'],
  scrub: Scrub,
): Promise<ExitCode> {
  // The command's --sandbox, --base-url and --base-url-v3.
  const connection: ConnectionFlags = flags;
  const namespace = answerNamespace(op, connection, io.env);
  const cache = flags.cache
    ? { path: resolve(io.cwd, flags.cache), namespace, scrub, maxAgeMs: flags.maxAge }
    : undefined;
  const url = storeUrl(flags, io.env);
  const cap = monthlyCap(flags, io.env, url);
  const shared =
    url === undefined
      ? undefined
      : { url, options: { namespace, maxAgeMs: flags.maxAge, maxTransactionsPerMonth: cap } };
  return runOneOff({
    op,
    namespace,
    shared,
    input,
    connection,
    json: flags.json === true,
    columns: flags.fields?.columns,
    policy: retryPolicyOf(flags),
    timeoutMs: flags.timeout,
    cache,
    retryUnreadable: flags.retryUnreadable === true,
    io,
  });
}

async function runOneOff(given: OneOffOptions): Promise<ExitCode> {
  const { op, io } = given;
  // Opened once the input is known to be valid (nothing is opened, asked or sent for an invalid
  // one), and closed when the command ends.
  let cache: AnswerStore | undefined;
  let shared: StoreFront | undefined;
  try {
    const asked = await new OneCalls().ask(op, given.input, async () => {
      // A person forgotten at their request is refused before the cache and the service (privacy.ts).
      const options = await withPrivacy(given);
      cache = options.cache ? AnswerStore.open(options.cache) : undefined;
      const store = options.shared;
      return {
        namespace: options.namespace,
        refuse: options.refuse,
        cache: cache && heldCache(cache),
        reuse: retryUnreadable(options),
        shared:
          store &&
          (async () => {
            shared = await openSharedStore(store.url, store.options);
            return { front: shared };
          }),
        // The input is validate()'s own: core's call does not check it again.
        send: (input) => call(options, input),
        onPaid: () => recordSpend(io, op, endpoints(options.connection, io.env)),
      };
    });
    return said(given, asked, { cache, shared });
  } finally {
    cache?.close();
    if (shared) await closeStore(shared, io.stderr);
  }
}

/** With --retry-unreadable, a paid-unreadable answer in the cache is asked again (said once). */
function retryUnreadable(options: OneOffOptions): ((cached: Outcome) => boolean) | undefined {
  if (!options.retryUnreadable) return undefined;
  let told = false;
  return (cached) => {
    if (!isUnreadable(cached)) return true;
    if (!told) {
      options.io.stderr.write(
        `--retry-unreadable: the cached answer was paid for but unreadable; asking again costs one more transaction.\n`,
      );
      told = true;
    }
    return false;
  };
}

/**
 * The options with the user's privacy applied: the retention caps the max age of the cache and the
 * shared store, the cache is registered (forget and held find it), and `refuse` says who is forgotten.
 */
async function withPrivacy(
  given: OneOffOptions,
): Promise<OneOffOptions & { readonly refuse: Refuse | undefined }> {
  const privacy = await runPrivacy(given.io.env, {
    maxAgeMs: given.cache?.maxAgeMs ?? given.shared?.options.maxAgeMs ?? Number.POSITIVE_INFINITY,
    journal: given.cache?.path,
    storeUrl: given.shared?.url,
  });
  if (privacy.note) given.io.stderr.write(`enrich: ${privacy.note}\n`);
  const maxAgeMs = privacy.maxAgeMs;
  return {
    ...given,
    cache: given.cache && { ...given.cache, maxAgeMs },
    shared: given.shared && { ...given.shared, options: { ...given.shared.options, maxAgeMs } },
    refuse: privacy.refuse,
  };
}

async function call(options: OneOffOptions, input: CleanInput): Promise<Outcome> {
  const { io } = options;
  const connection = await connect(options.connection, io);
  try {
    const report = await callOperation(options.op, input, {
      transport: createFetchTransport({ timeoutMs: options.timeoutMs }),
      settings: connection.settings,
      policy: options.policy,
      sleep: (ms) => abortableSleep(ms),
      now: Date.now,
      onRetry: ({ delayMs, outcome }) => {
        const why = outcome.kind === 'error' ? outcome.error.message : '';
        io.stderr.write(`${why} Trying again in ${(delayMs / 1000).toFixed(1)} s.\n`);
      },
    });
    if (report.waitTooLong) {
      const { retryAfterMs, resumeAt } = report.waitTooLong;
      io.stderr.write(
        `The service asked to wait ${Math.round(retryAfterMs / 1000)} s (Retry-After), longer than --max-retry-after; not waited for. Try again after ${new Date(resumeAt).toISOString()}.\n`,
      );
    }
    return report.outcome;
  } finally {
    await connection.close();
  }
}
