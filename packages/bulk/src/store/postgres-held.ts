// Paid answers the PostgreSQL store could not write (the database down or restarting): "a 200 is a
// purchase", so they are never dropped with the error.
// - Held in memory and served by this front (claim, getMany) while they are held.
// - Their claims stay this front's: ClaimRenewal keeps renewing them until they are written, so no
//   other instance takes the key over and buys it again meanwhile. (An outage longer than a claim's
//   life, 20 s, lets the claim expire in the database's clock: another instance that asks before the
//   next flush may then buy it again. Nothing here can prevent that; the flush comes first as a rule.)
// - Written again by a timer every `flushMs` while any are held (and with the next put that works),
//   without waiting for another put: a front that buys nothing more still writes them.
// - At close, what still could not be written is set aside in a rescue file beside the journal's
//   (rescue-files.ts, AnswerStore.setAside), named for the store and its schema, which the next open
//   of the store on this machine writes to the database (importSetAside); if even that fails, close
//   says how many answers of which operations are lost, never a key or a row.
// - Every write (a put's, the timer's, an import's) keeps only the answers whose request holds no
//   person forgotten in the store (postgres-suppression.ts): one bought by a request in flight when
//   the person was forgotten is the caller's this once, and not kept. A held answer so refused is
//   done with, as one written.
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS, type Outcome } from '@enrich/core';
import type pg from 'pg';
import { AnswerStore } from './answer-store.js';
import { acquireLock, type FileLock } from './file-lock.js';
import { rescuePathFor } from './journal-file.js';
import type { ClaimRenewal } from './postgres-claims.js';
import type { PgContext } from './postgres-context.js';
import { keyHashes, notSuppressed, suppressionLock } from './postgres-suppression.js';
import { inTransaction } from './postgres-transaction.js';
import { readRescued, rescueFiles, settleRescued } from './rescue-files.js';
import { StoreUnavailable } from './store-front.js';

/**
 * Stands for the store in rescue-files' names: one per database and schema (no password). `where` is
 * describePostgresUrl's (store-url.ts), so forget finds the files from the store's URL.
 */
export function postgresRescueName(where: string, schema: string, rescueDir: string): string {
  const id = createHash('sha256').update(`${where}\u0000${schema}`).digest('hex').slice(0, 16);
  return join(rescueDir, `postgres-${id}`);
}

/** The store's rescue files are named from this path (rescue-files.ts), and locked by its `.lock`. */
export function postgresRescuePath(where: string, schema: string, rescueDir: string): string {
  return rescuePathFor(postgresRescueName(where, schema, rescueDir), rescueDir);
}

/**
 * Writes answers (and ends this holder's claims on them) in one transaction that holds the
 * suppression list's lock shared (postgres-suppression.ts): an answer whose request holds a person
 * in the list is not kept, and no claim on it is left, whoever's (an import's answers were claimed
 * by a front closed since). Returns how many were kept.
 */
async function writeAnswers(
  ctx: PgContext,
  holder: string,
  answers: readonly { key: string; outcome: Outcome; at?: number }[],
): Promise<number> {
  const s = ctx.schema;
  const write = async (client: pg.PoolClient) => {
    const result = await client.query<{ kept: string }>(
      `WITH u AS (
         SELECT * FROM unnest($2::text[], $3::text[], $4::float8[], $5::text[]) AS u(key, outcome, at, hashes)
       ), kept AS (
         INSERT INTO ${s}.answers AS a (namespace, key, outcome, bought_at)
         SELECT $1, u.key, u.outcome::json, coalesce(to_timestamp(u.at / 1000.0), now())
         FROM u WHERE ${notSuppressed(s, 'u.hashes')}
         ON CONFLICT (namespace, key) DO UPDATE SET outcome = excluded.outcome, bought_at = excluded.bought_at
           WHERE a.bought_at <= excluded.bought_at
         RETURNING 1
       ), ended AS (
         DELETE FROM ${s}.claims c USING u
         WHERE c.namespace = $1 AND c.key = u.key AND (c.holder = $6 OR NOT ${notSuppressed(s, 'u.hashes')})
       )
       SELECT count(*) AS kept FROM kept`,
      [
        ctx.namespace,
        answers.map(({ key }) => key),
        answers.map(({ outcome }) => JSON.stringify(outcome)),
        answers.map(({ at }) => at ?? null),
        answers.map(({ key }) => keyHashes(key, ctx.salt).join(',')),
        holder,
      ],
    );
    return Number(result.rows[0]?.kept ?? 0);
  };
  return inTransaction(ctx.pool, write, suppressionLock(s, 'shared'));
}

/**
 * Writes this namespace's answers that an earlier front set aside on this machine (those of people
 * forgotten meanwhile are not kept, as any write: writeAnswers); returns how many were read. Under
 * the files' lock, which forget takes to rewrite them (forget/postgres-rescue.ts): one that is held
 * leaves them for the next open. A failure is left to the caller (the files stay for the next open).
 */
export async function importSetAside(ctx: PgContext, rescueDir = tmpdir()): Promise<number> {
  const oldest = ctx.maxAgeMs === null ? Number.NEGATIVE_INFINITY : Date.now() - ctx.maxAgeMs;
  const path = postgresRescuePath(ctx.where, ctx.schema, rescueDir);
  // Most opens find none: no lock file is made for nothing.
  if (rescueFiles(path).length === 0) return 0;
  let lock: FileLock;
  try {
    lock = acquireLock(postgresRescueName(ctx.where, ctx.schema, rescueDir), 'answers set aside');
  } catch {
    return 0; // another front imports them, or a forget rewrites them, now
  }
  try {
    const rescued = readRescued(path, ctx.namespace, oldest);
    if (rescued.lines.length > 0) {
      // The answers' own times: an answer is as old as its purchase, not its import. One per key
      // (the latest): two files may hold a key, and one statement cannot write a row twice.
      const latest = new Map<string, { key: string; outcome: Outcome; at: number }>();
      for (const { line } of rescued.lines) {
        if ((latest.get(line.key)?.at ?? Number.NEGATIVE_INFINITY) <= line.at) latest.set(line.key, line);
      }
      await writeAnswers(ctx, '', [...latest.values()]);
    }
    try {
      settleRescued(rescued);
    } catch {
      // A file that cannot be rewritten now is imported again by the next open, harmlessly.
    }
    return rescued.lines.length;
  } finally {
    lock.release();
  }
}

/** `3 phone-lookup, 1 email-verify`: how many answers of each operation; never a key. */
function byOperation(keys: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const key of keys) {
    const prefix = key.slice(0, key.indexOf(':'));
    const name = OPERATIONS.some((op) => op.id === prefix) ? prefix : 'other';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([name, n]) => `${n} ${name}`).join(', ');
}

export class HeldAnswers {
  private readonly held = new Map<string, Outcome>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly ctx: PgContext,
    private readonly holder: string,
    private readonly renewal: ClaimRenewal,
    private readonly flushMs: number,
    private readonly rescueDir: string = tmpdir(),
  ) {}

  get size(): number {
    return this.held.size;
  }

  get(key: string): Outcome | undefined {
    return this.held.get(key);
  }

  /** Holds a paid answer before its first write (its claim stays renewed until it is written). */
  hold(key: string, outcome: Outcome): void {
    this.held.set(key, outcome);
  }

  /** Writes these held answers (every one by default); what is left is retried by the timer. */
  async write(wanted: readonly string[] = [...this.held.keys()]): Promise<void> {
    const answers = wanted.flatMap((key) => {
      const outcome = this.held.get(key);
      return outcome === undefined ? [] : [{ key, outcome }];
    });
    try {
      if (answers.length > 0) await writeAnswers(this.ctx, this.holder, answers);
    } catch (error) {
      this.schedule();
      throw error;
    }
    for (const { key, outcome } of answers) {
      if (this.held.get(key) !== outcome) continue;
      this.held.delete(key);
      this.renewal.delete(key);
    }
  }

  /** Stops the timer (the front closes). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  /**
   * Sets aside what is still held (the front closed without writing it) and says where, as a
   * StoreUnavailable to throw: the rescue file, or what is lost. Undefined when nothing is held.
   */
  setAside(): StoreUnavailable | undefined {
    if (this.held.size === 0) return undefined;
    const { where, namespace } = this.ctx;
    const keys = [...this.held.keys()];
    const what = `${keys.length} paid answers (${byOperation(keys)}) of ${namespace} could not be written`;
    const report = AnswerStore.setAside(
      {
        path: postgresRescueName(this.ctx.where, this.ctx.schema, this.rescueDir),
        namespace,
        rescueDir: this.rescueDir,
      },
      keys.map((key) => ({ key, outcome: this.held.get(key) as Outcome })),
    );
    if (report.where === 'rescue') {
      this.held.clear();
      return new StoreUnavailable(
        `${where}: ${what}; they are set aside in ${report.rescuePath}, and the next open of this store on this machine writes them to it`,
      );
    }
    return new StoreUnavailable(
      `${where}: ${what}, nor set aside (${report.reason}): they are lost, and may be bought again`,
    );
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      if (this.held.size > 0) void this.write().catch(() => {});
    }, this.flushMs);
    // Not what keeps a process alive: close sets aside what is still held.
    this.timer.unref();
  }
}
