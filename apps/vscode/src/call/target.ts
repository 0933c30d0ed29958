// Where a paid call goes and with whose key: fixed when the person agrees to the call (a chat tool's
// confirmation, a palette call as it starts, an Enrich File review), and compared again just before
// anything is sent (purchase.ts's ceiling): a call goes only to the service, and with the key, that
// the person agreed to. Also the service in the words the confirmations use.
import type { Bases } from '@enrich/bulk';
import { checkApiKey, isLoopback, type Operation, operationUrl, type Settings } from '@enrich/core';

export interface Target {
  /** Where the request goes (core's operationUrl). */
  readonly url: string;
  /** The key and the bases the request is built from. Holds the key: never shown or logged. */
  readonly settings: Settings;
  /** The bases, and whether they are the session's own sandbox (the ledger's origin). */
  readonly bases: Bases;
  /** The service in words, as a confirmation says it. */
  readonly service: string;
}

export type TargetResult =
  | { readonly ok: true; readonly target: Target }
  | { readonly ok: false; readonly problem: 'no-key' | 'not-allowed'; readonly message: string };

/** Where a call of `op` goes now, with `apiKey`; or why none can be sent. Sends nothing. */
export function targetOf(op: Operation, bases: Bases, apiKey: string | undefined): TargetResult {
  if (!apiKey) return { ok: false, problem: 'no-key', message: 'no API key is set' };
  const keyProblem = checkApiKey(apiKey);
  if (keyProblem) return { ok: false, problem: 'not-allowed', message: keyProblem };
  const where = operationUrl(op, bases);
  if (!where.ok) return { ok: false, problem: 'not-allowed', message: where.message };
  return {
    ok: true,
    target: {
      url: where.url,
      settings: { apiKey, baseUrl: bases.baseUrl, baseUrlV3: bases.baseUrlV3 },
      bases,
      service: serviceWords(bases, where.url),
    },
  };
}

/**
 * "the sandbox of Try Without a Key (made-up data, nothing billed): <url>", "a local sandbox: <url>"
 * (on this machine), or the URL itself: a real service.
 */
export function serviceWords(bases: Bases, url: string): string {
  if (bases.sandbox) return `the sandbox of Try Without a Key (made-up data, nothing billed): ${url}`;
  const host = /^[a-z]+:\/\/(\[[^\]]*\]|[^/:?#]+)/i.exec(url.trim())?.[1] ?? '';
  return isLoopback(host) ? `a local sandbox: ${url}` : url;
}

/**
 * What changed between the target the person agreed to and where a call would go now, in words;
 * undefined when nothing did (the same URL, the same key, the same kind of service).
 */
export function targetChange(agreed: Target, now: TargetResult): string | undefined {
  const trialEnded = agreed.bases.sandbox && !(now.ok && now.target.bases.sandbox);
  if (trialEnded) {
    const after = now.ok ? `calls now go to ${now.target.service}` : now.message;
    return `Try Without a Key ended since the confirmation (it said: ${agreed.service}); ${after}`;
  }
  if (!now.ok) return `${now.message} (the confirmation said: ${agreed.service})`;
  if (now.target.bases.sandbox && !agreed.bases.sandbox)
    return `Try Without a Key started since the confirmation (it said: ${agreed.service})`;
  if (now.target.url !== agreed.url)
    return `the service changed since the confirmation: it said ${agreed.service}; calls now go to ${now.target.service}`;
  if (now.target.settings.apiKey !== agreed.settings.apiKey)
    return 'the API key changed since the confirmation (Set API Key or Clear API Key, in this window or another)';
  return undefined;
}
