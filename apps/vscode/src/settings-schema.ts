// The extension's settings, as one table: the manifest's `contributes.configuration` and the typed
// Config class both read it, so a setting's name and default are written once.
import { DEFAULT_BASE_URL, DEFAULT_BASE_URL_V3, DEFAULT_MAX_CONCURRENCY } from '@enrich/core';

export const CONFIG_SECTION = 'enrich';

export const SETTINGS = {
  baseUrl: {
    type: 'string',
    default: DEFAULT_BASE_URL,
    markdownDescription:
      'Base URL of the version-2 operations (Auto Append, Demographic Append, the three Verify operations). HTTPS, or plain http:// on localhost for the sandbox.',
  },
  baseUrlV3: {
    type: 'string',
    default: DEFAULT_BASE_URL_V3,
    markdownDescription:
      'Base URL of the version-3 operations (Email Append, Phone Append, Email Lookup, Phone Lookup). HTTPS, or plain http:// on localhost for the sandbox.',
  },
  requestTimeoutSeconds: {
    type: 'number',
    default: 30,
    minimum: 1,
    maximum: 600,
    markdownDescription: 'Seconds to wait for one answer before giving up on that attempt.',
  },
  historySize: {
    type: 'integer',
    default: 50,
    minimum: 0,
    maximum: 1000,
    markdownDescription:
      'How many recent calls the History view keeps (oldest dropped first). The API key is never stored with them.',
  },
  reuseAnswersHours: {
    type: 'number',
    default: 24,
    minimum: 0,
    maximum: 8760,
    markdownDescription:
      'Before sending a request the History already holds an answer for (a record or no match, from the same base URL) that is younger than this many hours, ask whether to show that answer (no transaction) or call again (one transaction). `0` turns the question off: every call is sent.',
  },
  concurrency: {
    type: ['string', 'integer'],
    default: 'auto',
    pattern: '^auto$',
    minimum: 1,
    maximum: 256,
    markdownDescription:
      'Requests at a time in **Enrich File**. `auto` finds the pace the service allows from its answers (more while answers keep their time; fewer when they slow down, on 5xx, or on a 429, after which requests are also paced per second just under the limit). A number (1 to 256) fixes it: set one only when you know what the provider allows.',
  },
  maxConcurrency: {
    type: 'integer',
    default: DEFAULT_MAX_CONCURRENCY,
    minimum: 1,
    maximum: 256,
    markdownDescription:
      'With `enrich.concurrency` set to `auto`: never more than this many requests at a time.',
  },
  maxRate: {
    type: 'number',
    default: 0,
    minimum: 0,
    markdownDescription:
      'Never more than this many requests per second in **Enrich File**, whatever the service allows (a key shared with another job, say). `0`: no such cap.',
  },
  resultView: {
    type: 'string',
    enum: ['view', 'json'],
    enumDescriptions: [
      'A view for people: fields in groups, likely meanings of codes, actions (the JSON document is one click away).',
      'The JSON document of the answer, as a read-only editor.',
    ],
    default: 'view',
    markdownDescription: 'Where a result opens.',
  },
} as const;

export type SettingName = keyof typeof SETTINGS;

/** The full name a user sees in settings.json, e.g. `enrich.baseUrl`. */
export function settingId(name: SettingName): string {
  return `${CONFIG_SECTION}.${name}`;
}
