// The answer store's front: one interface over where answers are kept, so that every client (the
// CLI, the MCP server, the functions server) asks the same questions whichever backend holds them:
// - the journal file (journal-front.ts): the embedded default, one process;
// - PostgreSQL (postgres-store.ts): shared by every instance and client of a team, so that a person
//   is bought once whoever asked first.
// Keys are core's requestKey (operation + normalised input); a front serves one service namespace
// (its normalised origin, or "sandbox"). Nothing kept holds the API key.
import type { Outcome } from '@enrich/core';

/** What `claim` gives: the answer already kept, or the right (and duty) to buy it. */
export type ClaimResult =
  | { readonly kind: 'answer'; readonly outcome: Outcome }
  /** Buy it, then `put` the answer (paid) or `release` the claim (nothing paid, or nothing kept). */
  | { readonly kind: 'claimed' };

/** A request to spend transactions, checked against every cap at once (atomically). */
export interface SpendRequest {
  /** The operation's CLI spelling (`phone-lookup`). */
  readonly operation: string;
  readonly count: number;
  /** A budget of one caller (a warehouse query): its id and the most it may spend in all. */
  readonly query?: { readonly id: string; readonly limit: number };
}

/** What every backend takes (openStore passes it on). */
export interface StoreOptions {
  /** The service namespace every key is kept under (its normalised origin, or "sandbox"). */
  readonly namespace: string;
  /** Answers older than this are not used (asked again); Infinity keeps them forever. */
  readonly maxAgeMs: number;
  /**
   * The most transactions the namespace may spend in a UTC month, whoever spends them (every
   * instance of a shared store); no cap when absent. PostgreSQL keeps it in the store, for every
   * client of the store, given it or not: the lowest set wins (postgres-spend.ts).
   */
  readonly maxTransactionsPerMonth?: number;
}

/**
 * The store could not do what was asked (the database is down or restarting, the journal cannot be
 * written). `message` says where and what, never a password or a row. A paid answer whose `put`
 * failed is held by the front (served to its callers, written again while held, set aside in a
 * rescue file at close) so it is not lost with the error.
 */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
  constructor(
    message: string,
    /** The driver's or the file system's code (`ECONNREFUSED`, `57P01`, `ENOSPC`), when there is one. */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A namespace's monthly cap in force. */
export interface MonthlyCap {
  readonly namespace: string;
  readonly maxTransactionsPerMonth: number;
}

/** One row of the store's spend table. */
export interface SpendRow {
  /** `2026-11`, in UTC. */
  readonly month: string;
  readonly namespace: string;
  readonly operation: string;
  readonly transactions: number;
}

export interface StoreFront {
  /** Where the answers are, as said to users ("the journal /x/answers.jsonl", "postgres db@host"); no password. */
  readonly where: string;
  /** The service namespace this front serves (StoreOptions.namespace). */
  readonly namespace: string;
  /** The kept answers for these keys that are younger than the maximum age; others are absent. */
  getMany(keys: readonly string[]): Promise<Map<string, Outcome>>;
  /**
   * The answer for `key` if one is kept; else the right to buy it. While another caller (this
   * process or another instance) holds a live claim on the key, waits for its answer; takes the
   * claim over when the holder released it or its claim expired (killed mid-call).
   */
  claim(key: string, options?: { readonly signal?: AbortSignal }): Promise<ClaimResult>;
  /** Keeps a paid answer, ends the claim on its key; resolves once the answer is durable. */
  put(key: string, outcome: Outcome): Promise<void>;
  /** Ends a claim without an answer: the next caller may buy it. */
  release(key: string): Promise<void>;
  /**
   * Reserves up to `count` transactions against the store-wide monthly cap and the query's budget:
   * resolves with how many may be spent (0 to count), atomically across instances. Reserved and
   * not spent (a failure that was not paid) goes back through `refund`.
   */
  reserve(request: SpendRequest): Promise<number>;
  refund(request: SpendRequest): Promise<void>;
  /** The spend table, oldest month first. */
  spend(): Promise<SpendRow[]>;
  /** The monthly caps in force, by namespace (PostgreSQL: every namespace's kept in the store). */
  monthlyCaps(): Promise<MonthlyCap[]>;
  close(): Promise<void>;
}
