// The answers one chunk of a run needs: for each request whose first row is in the chunk, the kept
// answer (cache or hidden sheet), else one bought now in fetchAll rounds, as far as the runner's
// allowance lets it (claimed first, the unspent given back after: allowance/ledger.ts). Answers go
// to the document cache after every round, so a chunk cut short between fetching and writing finds
// them again when resumed. The automation (automation/enrich.ts) asks the same way.
import {
  type CleanInput,
  type Outcome,
  Pace,
  type PaceState,
  paceText,
  type Settings,
} from '@enrich/core/universal';
import type { AllowanceGate, Held } from '../allowance/ledger.js';
import { cacheAnswers } from '../answers/document-cache.js';
import { pendingRequests } from '../answers/pending.js';
import { executionTime } from '../execution-time.js';
import { SIDEBAR_KEY_REFUSED } from '../messages.js';
import type { Origin } from '../provenance/note.js';
import { MAX_PARALLEL, sendAll } from '../send.js';
import type { PlannedRow, ResolvedRun } from './resolve.js';

/** No fetch round of a chunk starts after this; what is left goes to the next chunk. */
const CHUNK_FETCH_BUDGET_MS = 60_000;
/** Apps Script stops a sidebar call after 6 minutes; a round must end a minute before that. */
const CHUNK_LIMIT_MS = 6 * 60_000;
const CHUNK_MARGIN_MS = 60_000;

export interface ChunkAnswers {
  readonly byKey: Map<string, Outcome>;
  /** How each answer was had: bought now or reused, and when it was paid for (provenance notes). */
  readonly origins: Map<string, Origin>;
  /** Set when the requests to send were more than the run may still spend: nothing was sent. */
  readonly overCeiling?: { readonly needed: number };
  /** Set when the allowance let fewer requests be sent than were needed: why. */
  readonly held?: Held;
  readonly spent: number;
  readonly cached: number;
  /** What the pace learnt, for the next chunk; where it stands, in core's words; 429s and retries. */
  readonly pace: PaceState | undefined;
  readonly paceText: string | undefined;
  readonly throttled: number;
  readonly retries: number;
}

export interface ChunkWindow {
  readonly plans: readonly PlannedRow[];
  /** Request key → the first row (0-based) that asks it. */
  readonly firstRow: ReadonlyMap<string, number>;
  readonly start: number;
  readonly end: number;
}

export interface ChunkFetchOptions {
  /** When the chunk started (ms): its fetch budget counts from here. */
  readonly started: number;
  /** When the execution started, if earlier (the automation's batches): its 6 minutes count from here. */
  readonly executionStarted?: number;
  /** What the pace learnt in the previous chunks (none at the start of a run). */
  readonly pace: PaceState | undefined;
  /** Unreadable answers paid before this (ms) are bought again: the user asked for it. */
  readonly askAgainBefore?: number;
  /** Kept answers paid at or before this (ms) are too old to reuse: the runner's setting (freshness.ts). */
  readonly freshSince: number;
  /** Transactions the run may still spend (its ceiling less what it spent). */
  readonly allowance: number;
  /** The runner's allowance in this spreadsheet, claimed under the document lock the caller holds. */
  readonly gate: AllowanceGate;
}

/** Answers for the requests whose first row is in [start, end): kept ones, else fetched. */
export function fetchChunkAnswers(
  run: ResolvedRun,
  settings: Settings,
  window: ChunkWindow,
  options: ChunkFetchOptions,
): ChunkAnswers {
  const { plans, firstRow, start, end } = window;
  const wanted = new Map<string, CleanInput>();
  for (let i = start; i < end; i++) {
    const plan = plans[i];
    if (plan?.kind === 'request' && plan.input && firstRow.get(plan.key) === i)
      wanted.set(plan.key, plan.input);
  }
  const byKey = new Map<string, Outcome>();
  const origins = new Map<string, Origin>();
  const none = { paceText: undefined, throttled: 0, retries: 0 };
  if (wanted.size === 0) return { byKey, origins, spent: 0, cached: 0, pace: options.pace, ...none };
  const { cache, ids, cached, paidAt, jobs } = pendingRequests(run.op, wanted, settings, {
    freshSince: options.freshSince,
    askAgainBefore: options.askAgainBefore,
  });
  for (const [key, outcome] of cached) {
    byKey.set(key, outcome);
    origins.set(key, { paidAt: paidAt.get(key) ?? 0, bought: false });
  }
  if (jobs.length > options.allowance) {
    // More than the user agreed to: buy none of them (which rows they are is the caller's to say).
    return {
      byKey,
      origins,
      spent: 0,
      cached: cached.size,
      pace: options.pace,
      overCeiling: { needed: jobs.length },
      ...none,
    };
  }
  // The allowance: the first requests (in row order) that fit; the rows of the others wait.
  const granted = options.gate.claim(jobs.length);
  const held = granted < jobs.length ? (options.gate.held() ?? 'busy') : undefined;
  // The pace carries over from chunk to chunk: each chunk starts where the last one found the service.
  const pace = new Pace({ maxConcurrency: MAX_PARALLEL }, Date.now(), options.pace);
  const report = sendAll(run.op, jobs.slice(0, granted), {
    deadline: options.started + CHUNK_FETCH_BUDGET_MS,
    time: executionTime(options.executionStarted ?? options.started, CHUNK_LIMIT_MS, CHUNK_MARGIN_MS),
    pace,
    afterRound: (answers) => cacheAnswers(cache, answers),
  });
  options.gate.giveBack(granted - report.spent);
  const boughtAt = Date.now();
  const progressed = report.outcomes.size > 0 || cached.size > 0;
  for (const [key, id] of ids) {
    const outcome = report.outcomes.get(id);
    if (outcome?.kind === 'error' && outcome.error.code === 'unauthorized') {
      throw new Error(SIDEBAR_KEY_REFUSED);
    }
    if (outcome) {
      byKey.set(key, outcome);
      origins.set(key, { paidAt: boughtAt, bought: true });
    } else if (!progressed && !cached.has(key)) {
      // Nothing at all moved in this chunk (say, a long Retry-After): give the rows their last error
      // so that the run goes on instead of asking again for ever.
      const last = report.lastErrors.get(id);
      if (last) byKey.set(key, last);
    }
  }
  return {
    byKey,
    origins,
    held,
    spent: report.spent,
    cached: cached.size,
    pace: report.pace,
    paceText: report.attempts > 0 ? paceText(pace.reading(Date.now())) : undefined,
    throttled: report.throttled,
    retries: report.retries,
  };
}
