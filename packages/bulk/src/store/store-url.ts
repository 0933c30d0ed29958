// The store's URL (ENRICH_STORE / --store): which backend it names, and how to say where it points
// without its password. Decided here once for every client.

/** The environment variable every client reads the store's URL from. */
export const STORE_ENV = 'ENRICH_STORE';

const FORMS = 'postgres://user:password@host:5432/database (or postgresql://...)';

/** A PostgreSQL URL, or undefined for the journal (unset or blank); throws a clear error for anything else. */
export function storeUrlKind(url: string | undefined): 'journal' | 'postgres' {
  if (url === undefined || url.trim() === '') return 'journal';
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url.trim())?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    if (!URL.canParse(url.trim())) {
      throw new RangeError(
        `${STORE_ENV} / --store is not a URL that can be read; the accepted form is ${FORMS}`,
      );
    }
    return 'postgres';
  }
  // Only the scheme is repeated: the rest may hold a password.
  const got = scheme ? `a ${scheme}: URL` : 'a value that is not a URL';
  throw new RangeError(
    `${STORE_ENV} / --store must be a PostgreSQL URL, ${FORMS}, or unset for the local journal; got ${got}`,
  );
}

/** `postgres enrich@db.example:5432/answers`: the user, host, port and database; never the password. */
export function describePostgresUrl(url: string): string {
  const parsed = new URL(url.trim());
  const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
  const host = parsed.hostname || parsed.searchParams.get('host') || 'localhost';
  const port = parsed.port || '5432';
  return `postgres ${user}${host}:${port}${parsed.pathname || '/'}`;
}
