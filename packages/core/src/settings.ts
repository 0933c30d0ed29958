// Where requests go and with which key. HTTPS is required by the API; plain http:// is accepted
// only for loopback hosts, where the sandbox runs.
import { OPERATIONS, type Operation } from './catalog.js';

export interface Settings {
  readonly apiKey: string;
  /** Base of the v2 operations, {base_url} in the API description. */
  readonly baseUrl: string;
  /** Base of the v3 operations, {base_url_v3} in the API description. */
  readonly baseUrlV3: string;
}

/**
 * Documented defaults, changeable by the user in every client. A published client of this API used
 * these two hosts; the provider's own documentation names neither.
 */
export const DEFAULT_BASE_URL = 'https://api.tdg1.io';
export const DEFAULT_BASE_URL_V3 = 'https://testapi.tdg1.io';

/** The base an operation is sent to: its version group's (v2 or v3). */
export function baseUrlOf(op: Operation, settings: Pick<Settings, 'baseUrl' | 'baseUrlV3'>): string {
  return op.version === 'v2' ? settings.baseUrl : settings.baseUrlV3;
}

// scheme://host[:port][/path] — parsed by hand because Apps Script has no URL class.
const BASE_URL = /^(https?):\/\/(\[[0-9a-fA-F:.]+\]|[^/:?#\s[\]@]+)(?::(\d{1,5}))?(\/[^?#\s]*)?$/;

export type BaseUrlCheck =
  | { readonly ok: true; readonly base: string }
  | { readonly ok: false; readonly message: string };

/** Checks a base URL and returns it without trailing slashes, ready for a path to be appended. */
export function checkBaseUrl(label: string, url: string): BaseUrlCheck {
  const match = BASE_URL.exec(url.trim());
  if (!match)
    return { ok: false, message: `${label} must be a URL such as https://api.example.com; got "${url}"` };
  const [, scheme, host = ''] = match;
  if (scheme === 'http' && !isLoopback(host)) {
    return {
      ok: false,
      message: `${label} must use https:// (the API key would travel unencrypted); plain http:// is allowed only for localhost`,
    };
  }
  return { ok: true, base: url.trim().replace(/\/+$/, '') };
}

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

type GivenBases = { readonly baseUrl?: string | undefined; readonly baseUrlV3?: string | undefined };

/**
 * One base pointed at a local server and the other left to its default: the sandbox answers both
 * versions at one URL, so this is nearly always a forgotten option, and half of the operations
 * would go to the real service (with the demo key, or billed). The message says which and what to
 * set; undefined when the two agree. `labels` are the caller's names for the two settings.
 */
export function halfLocalBases(
  given: GivenBases,
  labels: { readonly baseUrl: string; readonly baseUrlV3: string } = {
    baseUrl: 'baseUrl',
    baseUrlV3: 'baseUrlV3',
  },
): string | undefined {
  const local = (url: string | undefined) =>
    url !== undefined && isLoopback(BASE_URL.exec(url.trim())?.[2] ?? '');
  const [set, unset, version, fallback] =
    given.baseUrlV3 === undefined && local(given.baseUrl)
      ? ([labels.baseUrl, labels.baseUrlV3, 'v3', DEFAULT_BASE_URL_V3] as const)
      : given.baseUrl === undefined && local(given.baseUrlV3)
        ? ([labels.baseUrlV3, labels.baseUrl, 'v2', DEFAULT_BASE_URL] as const)
        : [];
  if (set === undefined) return undefined;
  const titles = OPERATIONS.filter((op) => op.version === version).map((op) => op.title);
  return `${set} is a local server but ${unset} is not set, so ${titles.join(', ')} would go to ${fallback}; set ${unset} to the same URL (the sandbox serves both)`;
}
