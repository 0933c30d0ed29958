// The secret a shared store's URL holds (postgres://user:password@host/db): its password, as
// typed in the URL and decoded. Every client hides these from what it prints (the terminal, its
// logs), as it hides the API key; the store's own messages name it without one (describePostgresUrl).

/** The password of a store URL, as written and decoded (none when the URL has none). */
export function storeUrlSecrets(url: string): string[] {
  // Read by hand as well as by URL: a URL that does not parse may still hold a password.
  const written = /^[a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:([^/?#@]*)@/i.exec(url.trim())?.[1];
  if (written === undefined || written === '') return [];
  let decoded = written;
  try {
    decoded = decodeURIComponent(written);
  } catch {
    // A stray % is part of the password as written.
  }
  return [...new Set([written, decoded])];
}
