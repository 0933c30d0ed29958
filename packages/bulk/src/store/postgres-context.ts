// What the PostgreSQL store's modules share: the pool, where the tables are, the namespace served,
// the max age, and how failures are described and retried (postgres-errors.ts).
import type pg from 'pg';

export interface PgContext {
  readonly pool: pg.Pool;
  /** The checked schema name (postgres-schema.ts), put in statements as is. */
  readonly schema: string;
  readonly namespace: string;
  /** Null when answers are kept forever. */
  readonly maxAgeMs: number | null;
  /** How the store is named in errors (no password). */
  readonly where: string;
  readonly retryDelayMs: number;
  /** The salt of the store's suppression list (postgres-suppression.ts), read once at open. */
  readonly salt: string;
}

/**
 * `AND <alias>.bought_at` younger than the max age, the max age being parameter `$<n>` (null: no
 * limit). The database's clock decides, the same for every instance.
 */
export function freshOnly(alias: string, n: number): string {
  return `AND ($${n}::float8 IS NULL OR ${alias}.bought_at > now() - $${n}::float8 * interval '1 millisecond')`;
}
