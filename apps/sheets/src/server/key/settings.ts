// Where the API key, base URLs and how long answers are reused live: the user properties of whoever
// runs the code. In a custom function Apps Script hands over the spreadsheet owner's user properties
// instead, so formulas use the owner's key and settings (see README, "Whose key"). Never document or
// script properties: every editor of the document, or every user of the add-on, can read and change
// those, and what spends a key is for its owner alone to decide.
import {
  checkApiKey,
  checkBaseUrl,
  DEFAULT_BASE_URL,
  DEFAULT_BASE_URL_V3,
  type Settings,
} from '@enrich/core/universal';
import { ANSWER_DAYS_PROPERTY, checkAnswerDays, parseAnswerDays } from '../answers/freshness.js';
import { MENU_PATH } from '../messages.js';

const PROP_API_KEY = 'enrich.apiKey';
const PROP_BASE_URL = 'enrich.baseUrl';
const PROP_BASE_URL_V3 = 'enrich.baseUrlV3';

export interface StoredSettings {
  /** null when no key is set. */
  readonly apiKey: string | null;
  readonly baseUrl: string;
  readonly baseUrlV3: string;
  /** How long answers this user's key bought are reused ("Reuse kept answers for"), in days. */
  readonly answerDays: number;
}

/** What the sidebar may see: whether a key is set and its last characters, never the key. */
export interface PublicSettings {
  readonly keySet: boolean;
  /** The key's last 4 characters, only for keys long enough that this gives little away. */
  readonly keyHint: string;
  readonly baseUrl: string;
  readonly baseUrlV3: string;
  readonly defaults: { readonly baseUrl: string; readonly baseUrlV3: string };
  readonly allowList: readonly string[];
}

export function readSettings(props: GoogleAppsScript.Properties.Properties): StoredSettings {
  return settingsFrom(props.getProperties());
}

/** The settings among a user's properties, read once (`getProperties()`). */
export function settingsFrom(all: Readonly<Record<string, string>>): StoredSettings {
  return {
    apiKey: all[PROP_API_KEY] || null,
    baseUrl: all[PROP_BASE_URL] || DEFAULT_BASE_URL,
    baseUrlV3: all[PROP_BASE_URL_V3] || DEFAULT_BASE_URL_V3,
    answerDays: parseAnswerDays(all[ANSWER_DAYS_PROPERTY]),
  };
}

export function userSettings(): StoredSettings {
  return readSettings(PropertiesService.getUserProperties());
}

export function asCoreSettings(stored: StoredSettings): Settings {
  return { apiKey: stored.apiKey ?? '', baseUrl: stored.baseUrl, baseUrlV3: stored.baseUrlV3 };
}

export function publicSettings(stored: StoredSettings): PublicSettings {
  const key = stored.apiKey ?? '';
  return {
    keySet: key !== '',
    keyHint: key.length >= 12 ? key.slice(-4) : '',
    baseUrl: stored.baseUrl,
    baseUrlV3: stored.baseUrlV3,
    defaults: { baseUrl: DEFAULT_BASE_URL, baseUrlV3: DEFAULT_BASE_URL_V3 },
    allowList: __URL_ALLOWLIST__,
  };
}

/**
 * Checks and stores a change to the current user's settings (`{apiKey?, baseUrl?, baseUrlV3?,
 * answerDays?}`); messages never repeat the key.
 */
export function saveUserSettings(change: unknown): PublicSettings {
  if (change === null || typeof change !== 'object' || Array.isArray(change)) {
    throw new Error('saveSettings takes {apiKey?, baseUrl?, baseUrlV3?, answerDays?}');
  }
  const { apiKey, baseUrl, baseUrlV3, answerDays } = change as Record<string, unknown>;
  const updates: Record<string, string> = {};
  const removals: string[] = [];
  if (apiKey !== undefined && apiKey !== null) {
    if (typeof apiKey !== 'string') throw new Error('The API key must be text');
    // Surrounding spaces and a final line break are a paste's, not the key's; anything core's check
    // objects to inside the key (a space, a line break, an invisible character) refuses it, with a
    // message that does not repeat it.
    const key = apiKey.trim();
    const problem = key === '' ? undefined : checkApiKey(key);
    if (key === '') removals.push(PROP_API_KEY);
    else if (problem) throw new Error(`${problem} It was not saved.`);
    else if (!/^[\x21-\x7e]{1,512}$/.test(key)) {
      throw new Error(
        'The API key must be at most 512 printable characters without spaces; it was not saved',
      );
    } else updates[PROP_API_KEY] = key;
  }
  for (const [prop, label, value] of [
    [PROP_BASE_URL, 'Base URL (v2)', baseUrl],
    [PROP_BASE_URL_V3, 'Base URL (v3)', baseUrlV3],
  ] as const) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string') throw new Error(`${label} must be text`);
    if (value.trim() === '') {
      removals.push(prop);
      continue;
    }
    updates[prop] = checkAllowedBase(label, value);
  }
  if (answerDays !== undefined) {
    const days = checkAnswerDays(answerDays);
    if (days === null) removals.push(ANSWER_DAYS_PROPERTY);
    else updates[ANSWER_DAYS_PROPERTY] = days;
  }
  const props = PropertiesService.getUserProperties();
  if (Object.keys(updates).length > 0) props.setProperties(updates);
  for (const prop of removals) props.deleteProperty(prop);
  return publicSettings(readSettings(props));
}

/** A base URL that core accepts and that the manifest's urlFetchWhitelist lets UrlFetchApp reach. */
export function checkAllowedBase(label: string, url: string): string {
  const checked = checkBaseUrl(label, url);
  if (!checked.ok) throw new Error(checked.message);
  if (!isAllowed(`${checked.base}/`)) {
    throw new Error(
      `${label} ${checked.base} is not in this add-on's URL allow-list (${__URL_ALLOWLIST__.join(', ')}). ` +
        'Apps Script refuses other addresses: add it to urlFetchWhitelist (build with SHEETS_EXTRA_URLS) and deploy again.',
    );
  }
  return checked.base;
}

/** Refuses, before anything is sent, a URL that UrlFetchApp would refuse (a base saved before the allow-list changed). */
export function assertAllowedUrl(url: string): void {
  if (!isAllowed(url)) {
    throw new Error(
      `${url.replace(/^(https?:\/\/[^/]+).*$/, '$1')} is not in this add-on's URL allow-list; change the base URL in ${MENU_PATH} > Settings…`,
    );
  }
}

/** The manifest's rule: an entry is an https:// prefix; a leading "*." stands for any subdomain. */
export function isAllowed(url: string): boolean {
  return __URL_ALLOWLIST__.some((entry) => {
    const wild = /^https:\/\/\*\.(.*)$/.exec(entry);
    if (!wild) return url.startsWith(entry);
    const rest = /^https:\/\/[^/]+?\.(.*)$/.exec(url);
    return rest !== null && (rest[1] ?? '').startsWith(wild[1] ?? '');
  });
}

export function noKeyMessageForSidebar(): string {
  return `You have not set an API key. The sidebar uses your own key: ${MENU_PATH} > Set API key…`;
}
