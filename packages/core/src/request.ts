// Builds the HTTP request for an operation from a validated input, and its redacted forms.
import type { Operation } from './catalog.js';
import type { HttpRequest } from './http.js';
import { checkApiKey } from './keys.js';
import { baseUrlOf, checkBaseUrl, type Settings } from './settings.js';
import type { CleanInput } from './validate.js';

export const API_KEY_HEADER = 'x-api-key';
/** Stands for the key wherever a request is shown, copied or stored. */
export const REDACTED_KEY = '[redacted]';
/** The environment variable that "copy as curl" refers to instead of the key. */
export const API_KEY_ENV = 'ENRICH_API_KEY';
/** Where the v2 and v3 operations live, for the clients that read the environment (CLI, MCP server). */
export const BASE_URL_ENV = 'ENRICH_BASE_URL';
export const BASE_URL_V3_ENV = 'ENRICH_BASE_URL_V3';

export type BuildResult =
  | { readonly ok: true; readonly request: HttpRequest }
  | { readonly ok: false; readonly message: string };

export type UrlResult =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly message: string };

/** The full address of an operation: its version group's base followed by its path. */
export function operationUrl(op: Operation, settings: Pick<Settings, 'baseUrl' | 'baseUrlV3'>): UrlResult {
  const checked = checkBaseUrl(`Base URL (${op.version})`, baseUrlOf(op, settings));
  if (!checked.ok) return checked;
  return { ok: true, url: checked.base + op.path };
}

export function buildRequest(op: Operation, input: CleanInput, settings: Settings): BuildResult {
  // A key with whitespace or control characters is refused, not trimmed: it is a copy mistake,
  // and the message says where without repeating the key.
  const keyProblem = checkApiKey(settings.apiKey ?? '');
  if (keyProblem) return { ok: false, message: keyProblem };
  const target = operationUrl(op, settings);
  if (!target.ok) return target;
  return {
    ok: true,
    request: {
      method: 'POST',
      url: target.url,
      headers: { [API_KEY_HEADER]: settings.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(input),
    },
  };
}

/** The request with the key replaced, safe to log, display, store in history or export. */
export function redactRequest(request: HttpRequest): HttpRequest {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    headers[name] = name.toLowerCase() === API_KEY_HEADER ? REDACTED_KEY : value;
  }
  return { ...request, headers };
}

/** A curl command for the request that reads the key from $ENRICH_API_KEY instead of holding it. */
export function toCurl(request: HttpRequest): string {
  const lines = [`curl -X ${request.method} ${shellQuote(request.url)}`];
  for (const [name, value] of Object.entries(request.headers)) {
    const shown = name.toLowerCase() === API_KEY_HEADER ? `${name}: $${API_KEY_ENV}` : `${name}: ${value}`;
    // Double quotes only for the key header, so that the shell expands the variable.
    lines.push(name.toLowerCase() === API_KEY_HEADER ? `-H "${shown}"` : `-H ${shellQuote(shown)}`);
  }
  lines.push(`--data ${shellQuote(request.body)}`);
  return lines.join(' \\\n  ');
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
