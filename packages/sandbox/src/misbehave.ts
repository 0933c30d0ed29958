// Ways the sandbox can misbehave on request, as real services, proxies and networks do: so that
// users can test their integrations against them, and our tests use them. Chosen for every request
// (`--misbehave MODE[,MODE]`, SANDBOX_MISBEHAVE, startSandboxServer({ misbehave })) or for one
// request (header `x-sandbox-misbehave: MODE[,MODE]`, added to the server-wide ones).
//
// Three kinds:
// - in front of the service, like a proxy or a rate limiter: `redirect`, `retry-after-huge`,
//   `retry-after-date` answer any request to an operation path before the key is even checked;
// - in the answer: the other modes but one change what would have been a 200 record (after the
//   key, validation, allowance and reserved inputs). That 200 is counted as a transaction, whatever
//   the mode does to its body or its delivery, as a real service bills it;
// - around every answer: `echo-key`, a badly made gateway that dumps the request's x-api-key into
//   whatever it passes on (a header, and the JSON body of an error or of a record). The answer is
//   counted as it would have been without it. Clients' scrubbers are tested against it: a key that
//   comes back in a record is kept with it (an unknown field), so every copy a client writes or
//   prints must have it hidden.
import type { SandboxResponse } from './exchange.js';

export const MISBEHAVE_MODES = [
  'redirect',
  'other-case',
  'extra-fields',
  'wrong-types',
  'html-200',
  'cut-body',
  'huge-body',
  'trickle',
  'retry-after-huge',
  'retry-after-date',
  'echo-key',
] as const;

export type MisbehaveMode = (typeof MISBEHAVE_MODES)[number];

/** The per-request header; its value is one mode or a comma-separated list. */
export const MISBEHAVE_HEADER = 'x-sandbox-misbehave';

/** What each mode does, for --help and the README (a test checks the README lists them all). */
export const MISBEHAVE_DESCRIPTIONS: Readonly<Record<MisbehaveMode, string>> = {
  redirect: '307 to the same path on another port of 127.0.0.1 (a decoy that counts what reaches it)',
  'other-case': 'a 200 whose documented field names come in another case (phoneType, name.fName)',
  'extra-fields':
    'a 200 with fields the API description does not list (DID, telcoName, Meta.Source, Name.Nick)',
  'wrong-types': 'a 200 with values of other types (Deliverable "Y", Name as one string, ZIP as a number)',
  'html-200': 'a 200 whose body is an HTML page (text/html), as a captive portal or proxy sends',
  'cut-body': 'a 200 whose body stops half-way: the connection is destroyed',
  'huge-body': 'a 200 with a 2 MB body (a record padded with one huge unknown field)',
  trickle: 'a 200 whose body arrives one byte every 2 s',
  'retry-after-huge': '429 with Retry-After: 99999 (about 28 hours)',
  'retry-after-date': '429 with Retry-After as an HTTP date 2 s ahead',
  'echo-key':
    "every answer repeats the request's x-api-key: in the header x-echo-api-key and in a JSON body's field Echo",
};

/** Pause between bytes in `trickle`. */
export const TRICKLE_INTERVAL_MS = 2000;
/** Size of the `huge-body` answer. */
export const HUGE_BODY_BYTES = 2 * 1024 * 1024;

export type MisbehaveParse =
  | { readonly ok: true; readonly modes: readonly MisbehaveMode[] }
  | { readonly ok: false; readonly message: string };

/** Parses "mode,mode" (spaces and case ignored); names the ones that do not exist. */
export function parseMisbehave(list: string | readonly string[] | undefined): MisbehaveParse {
  const names = (typeof list === 'string' ? list.split(',') : (list ?? []))
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  const unknown = names.filter((n) => !(MISBEHAVE_MODES as readonly string[]).includes(n));
  if (unknown.length > 0) {
    return {
      ok: false,
      message: `Unknown misbehave mode ${unknown.map((u) => `"${u}"`).join(', ')}; the modes are ${MISBEHAVE_MODES.join(', ')}`,
    };
  }
  return { ok: true, modes: [...new Set(names as MisbehaveMode[])] };
}

/** The modes in force for one request: the server-wide ones and those its header asks for. */
export function requestModes(
  serverWide: readonly MisbehaveMode[],
  asked: string | undefined,
): MisbehaveParse {
  const parsed = parseMisbehave(asked);
  return parsed.ok ? { ok: true, modes: [...new Set([...serverWide, ...parsed.modes])] } : parsed;
}

/** The first mode, in list order, that answers in front of the service, if any. */
export function frontMode(modes: readonly MisbehaveMode[]): MisbehaveMode | undefined {
  return modes.find((m) => m === 'redirect' || m === 'retry-after-huge' || m === 'retry-after-date');
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The body of a 200 as the modes change it, and how it is delivered. */
export interface MisbehavingAnswer {
  readonly contentType: string;
  readonly body: string;
  readonly delivery?: 'cut' | 'trickle';
}

/** Applies the answer modes to a record, in a fixed order whatever order they were listed in. */
export function misbehavingAnswer(record: Json, modes: readonly MisbehaveMode[]): MisbehavingAnswer {
  let value: Record<string, Json> = isObject(record) ? record : {};
  // other-case changes the documented names only: unknown fields keep the names they are added with.
  if (modes.includes('wrong-types')) value = wrongTypes(value);
  if (modes.includes('other-case')) value = otherCase(value) as Record<string, Json>;
  if (modes.includes('extra-fields')) value = extraFields(value);
  let contentType = 'application/json';
  let body = JSON.stringify(value);
  if (modes.includes('huge-body')) {
    // Still a JSON object: only its size is wrong.
    const padding = 'x'.repeat(Math.max(0, HUGE_BODY_BYTES - body.length));
    body = JSON.stringify({ ...value, Padding: padding });
  }
  if (modes.includes('html-200')) {
    contentType = 'text/html; charset=utf-8';
    body =
      '<!doctype html>\n<html><head><title>Service unavailable</title></head>\n' +
      '<body><h1>Please wait</h1><p>The service is temporarily unavailable.</p></body></html>\n';
  }
  if (modes.includes('cut-body')) return { contentType, body, delivery: 'cut' };
  if (modes.includes('trickle')) return { contentType, body, delivery: 'trickle' };
  return { contentType, body };
}

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

/** Every key with the case of its first letter swapped: PhoneType → phoneType, trace → Trace. */
function otherCase(value: Json): Json {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, Json> = {};
  for (const [key, inner] of Object.entries(value)) out[swapFirst(key)] = otherCase(inner);
  return out;
}

function swapFirst(key: string): string {
  const first = key.charAt(0);
  const swapped = first === first.toLowerCase() ? first.toUpperCase() : first.toLowerCase();
  return swapped + key.slice(1);
}

/** Fields a published client of this API reads that the description does not list, and more. */
function extraFields(record: Record<string, Json>): Record<string, Json> {
  // Added only where the name is free: with other-case, Phone Append's TelcoName already came as
  // telcoName, and overwriting it would lose the documented value.
  const added: Record<string, Json> = {
    DID: '5550102030',
    telcoName: 'Sandbox Wireless',
    LineType: 'W',
    Meta: { Source: 'sandbox', Version: 3 },
  };
  const out: Record<string, Json> = { ...added, ...record };
  // The Name group, however other-case spelled it.
  const nameKey = Object.keys(out).find((k) => k.toLowerCase() === 'name');
  const name = nameKey === undefined ? undefined : out[nameKey];
  if (nameKey !== undefined && isObject(name)) out[nameKey] = { ...name, Nick: 'JJ' };
  return out;
}

/**
 * Values of other types: booleans as "Y"/"N", numbers as text, all-digit text as a number (a ZIP
 * losing its leading zero), the Name group as one string; where none of these apply, the first
 * text field comes as a list.
 */
function wrongTypes(record: Record<string, Json>): Record<string, Json> {
  let changed = false;
  const leaf = (value: Json): Json => {
    if (typeof value === 'boolean') {
      changed = true;
      return value ? 'Y' : 'N';
    }
    if (typeof value === 'number') {
      changed = true;
      return String(value);
    }
    if (typeof value === 'string' && /^\d{1,15}$/.test(value)) {
      changed = true;
      return Number(value);
    }
    return value;
  };
  const out: Record<string, Json> = {};
  for (const [key, value] of Object.entries(record)) {
    if (key === 'Name' && isObject(value)) {
      out[key] = [value.FName, value.LName].filter((v) => typeof v === 'string' && v !== '').join(' ');
      changed = true;
    } else if (isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, leaf(v)]));
    } else {
      out[key] = leaf(value);
    }
  }
  if (!changed) {
    const first = Object.keys(out).find((k) => typeof out[k] === 'string');
    if (first !== undefined) out[first] = [out[first] as string];
  }
  return out;
}

/** The header in which `echo-key` repeats the request's x-api-key. */
export const ECHO_KEY_HEADER = 'x-echo-api-key';

/**
 * The answer as a badly made gateway passes it on (`echo-key`): the request's x-api-key (whatever
 * it was, known to the sandbox or not) in ECHO_KEY_HEADER and, when the body is a JSON object (a
 * record or an error), in its field `Echo` as `{"x-api-key": ...}`. Other bodies (HTML, none) keep
 * only the header. A request without the header is passed on as it is.
 */
export function echoKey(response: SandboxResponse, apiKey: string | undefined): SandboxResponse {
  if (apiKey === undefined) return response;
  const headers = { ...response.headers, [ECHO_KEY_HEADER]: apiKey };
  let value: unknown;
  try {
    value = JSON.parse(response.body);
  } catch {
    return { ...response, headers };
  }
  if (!isObject(value as Json)) return { ...response, headers };
  const body = JSON.stringify({ ...(value as Record<string, Json>), Echo: { 'x-api-key': apiKey } });
  return { ...response, headers, body };
}

/** Retry-After as an HTTP date `aheadMs` from `nowMs`, rounded up to the next whole second. */
export function retryAfterDate(nowMs: number, aheadMs = 2000): string {
  return new Date(Math.ceil((nowMs + aheadMs) / 1000) * 1000).toUTCString();
}
