// The free key check. It sends each base in use a request the service must refuse as incomplete:
// an empty body to a cheap operation (Email Verify for v2, Phone Lookup for v3). 401 means the key
// was refused, 400 means it was accepted (the service got as far as the parameters), and neither
// costs a transaction. This relies on the service checking the key before the parameters; any
// other answer (a redirect, 404, 200, 5xx) is reported as unexpected with its status, and a
// network failure as unreachable. The v2 and v3 groups live on separate hosts, so both are checked.
import { getOperation, type Operation } from './catalog.js';
import { type HttpRequest, type HttpResponse, wasSentWhole } from './http.js';
import { checkApiKey } from './keys.js';
import { API_KEY_HEADER, operationUrl } from './request.js';
import { networkError, readResponse } from './response.js';
import type { Settings } from './settings.js';

export interface KeyCheckRequest {
  /** The base being checked, as the user set it (without trailing slashes). */
  readonly base: string;
  /** Holds the key: send it, never show it. */
  readonly request: HttpRequest;
}

export type KeyCheckPlan =
  | { readonly ok: true; readonly checks: readonly KeyCheckRequest[] }
  | { readonly ok: false; readonly message: string };

export type KeyCheckVerdict = 'accepted' | 'refused' | 'unexpected' | 'unreachable';

export interface KeyCheckResult {
  readonly base: string;
  readonly verdict: KeyCheckVerdict;
  /** One sentence for people, without the key. */
  readonly detail: string;
}

/** What came back for a key check: a response, or the failure that stopped one arriving. */
export type KeyCheckAnswer = HttpResponse | { readonly networkError: unknown };

// The cheapest operation of each group; both are refused with 400 when the body is empty.
const CHECKED_OPERATION: Readonly<Record<'v2' | 'v3', Operation>> = {
  v2: getOperation('email-verify'),
  v3: getOperation('phone-lookup'),
};

/** One request per distinct base in use; none when the key or a base is not usable. */
export function planKeyCheck(settings: Settings): KeyCheckPlan {
  const keyProblem = checkApiKey(settings.apiKey);
  if (keyProblem) return { ok: false, message: keyProblem };
  const checks: KeyCheckRequest[] = [];
  for (const op of [CHECKED_OPERATION.v2, CHECKED_OPERATION.v3]) {
    const target = operationUrl(op, settings);
    if (!target.ok) return { ok: false, message: target.message };
    const base = target.url.slice(0, target.url.length - op.path.length);
    if (checks.some((c) => c.base === base)) continue;
    checks.push({
      base,
      request: {
        method: 'POST',
        url: target.url,
        headers: { [API_KEY_HEADER]: settings.apiKey, 'Content-Type': 'application/json' },
        body: '{}',
      },
    });
  }
  return { ok: true, checks };
}

/** The verdict on one base from what came back. */
export function readKeyCheck(base: string, answer: KeyCheckAnswer): KeyCheckResult {
  if ('networkError' in answer) {
    // A deadline passed after sending is no bill here: the empty test request is refused unread.
    const cause = answer.networkError;
    const outcome = networkError(base, wasSentWhole(cause) ? new Error((cause as Error).message) : cause);
    const message = outcome.kind === 'error' ? outcome.error.message : '';
    return { base, verdict: 'unreachable', detail: `${message}. Nothing was spent.` };
  }
  const { status } = answer;
  if (status === 400)
    return {
      base,
      verdict: 'accepted',
      detail: `Key accepted: the service refused the empty test request as incomplete (400), so it knows the key. Nothing was spent.`,
    };
  if (status === 401)
    return {
      base,
      verdict: 'refused',
      detail: 'Key refused (401): check the key, or set a new one. Nothing was spent.',
    };
  return { base, verdict: 'unexpected', detail: unexpectedDetail(answer) };
}

function unexpectedDetail(response: HttpResponse): string {
  const { status } = response;
  if (status >= 300 && status < 400) {
    const outcome = readResponse(CHECKED_OPERATION.v2, response);
    const message = outcome.kind === 'error' ? outcome.error.message : `A redirect (${status}).`;
    return `Unexpected answer: ${message} Whether the key is accepted is not known.`;
  }
  if (status === 404)
    return 'Unexpected answer: 404 (no such operation at this address). The base URL may be wrong; whether the key is accepted is not known.';
  if (status === 200 || status === 204 || status === 440)
    return `Unexpected answer: ${status} to an empty request. The service may not check the key before the parameters, and this check may have cost a transaction.`;
  if (status === 429)
    return 'Unexpected answer: 429 (allowance used up). The key seems known, but no call will succeed until the allowance resets.';
  return `Unexpected answer: status ${status}. Whether the key is accepted is not known.`;
}
