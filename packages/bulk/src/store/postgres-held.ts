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
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPERATIONS, type Outcome } from '@enrich/core';
import { AnswerStore } from './answer-store.js';
import { rescuePathFor } from './journal-file.js';
import type { ClaimRenewal } from './postgres-claims.js';
import type { PgContext } from './postgres-context.js';
import { readRescued, settleRescued } from './rescue-files.js';
import { StoreUnavailable } from './store-front.js';

/** Stands for the store in rescue-files' names: one per database and schema (no password). */
function rescueName(ctx: PgContext, rescueDir: string): string {
  const id = createHash('sha256').update(`${ctx.where}\u0000${ctx.schema}`).digest('hex').slice(0, 16);
  return join(rescueDir, `postgres-${id}`);
}

/** Writes answers (and ends this holder's claims on them) in one statement. */
async function writeAnswers(
  ctx: PgContext,
  holder: string,
  answers: readonly { key: string; outcome: Outcome; at?: number }[],
): Promise<void> {
  const s = ctx.schema;
  await ctx.pool.query(
    `WITH kept AS (
       INSERT INTO ${s}.answers AS a (namespace, key, outcome, bought_at)
       SELECT $1, u.key, u.outcome::json, coalesce(to_timestamp(u.at / 1000.0), now())
       FROM unnest($2::text[], $3::text[], $4::float8[]) AS u(key, outcome, at)
       ON CONFLICT (namespace, key) DO UPDATE SET outcome = excluded.outcome, bought_at = excluded.bought_at
         WHERE a.bought_at <= excluded.bought_at
     )
     DELETE FROM ${s}.claims WHERE namespace = $1 AND key = ANY($2::text[]) AND holder = $5`,
    [
      ctx.namespace,
      answers.map(({ key }) => key),
      answers.map(({ outcome }) => JSON.stringify(outcome)),
      answers.map(({ at }) => at ?? null),
      holder,
    ],
  );
}

/**
 * Writes this namespace's answers that an earlier front set aside on this machine; returns how many.
 * A failure is left to the caller (the files stay for the next open).
 */
export async function importSetAside(ctx: PgContext, rescueDir = tmpdir()): Promise<number> {
  const oldest = ctx.maxAgeMs === null ? Number.NEGATIVE_INFINITY : Date.now() - ctx.maxAgeMs;
  const rescued = readRescued(rescuePathFor(rescueName(ctx, rescueDir), rescueDir), ctx.namespace, oldest);
  if (rescued.lines.length > 0) {
    // The answers' own times: an answer is as old as its purchase, not its import.
    const answers = rescued.lines.map(({ line }) => ({ key: line.key, outcome: line.outcome, at: line.at }));
    await writeAnswers(ctx, '', answers);
  }
  try {
    settleRescued(rescued);
  } catch {
    // Another front of the store settled them meanwhile; a file left over is imported again, harmlessly.
  }
  return rescued.lines.length;
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
      { path: rescueName(this.ctx, this.rescueDir), namespace, rescueDir: this.rescueDir },
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
