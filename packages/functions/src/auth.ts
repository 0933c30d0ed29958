// Who may make the server spend: every call of /bigquery, /snowflake and /rows buys with the
// server's key, so a caller must be authenticated, and the server does not start without a way to
// do it. Three ways, chosen once at start:
// - token (the default): ENRICH_FUNCTIONS_TOKEN, sent as `Authorization: Bearer <token>` (a script,
//   Databricks' HTTP connection) or as Snowflake's custom header `sf-custom-token` (the external
//   function's HEADERS = ('token' = '...')). Compared in constant time, on digests.
// - platform (`--auth platform`): behind Cloud Run with IAM, Google checks BigQuery's ID token before
//   the request reaches the container and passes the header on; the server requires that a bearer
//   token is there and trusts the platform's check. The port must not be reachable any other way.
// - none (`--no-auth`): on a loopback address only, for trying it on one's own machine.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isLoopback } from '@enrich/core';

export const TOKEN_ENV = 'ENRICH_FUNCTIONS_TOKEN';
/** Snowflake sends a function's HEADERS as `sf-custom-<name>`. */
export const SNOWFLAKE_TOKEN_HEADER = 'sf-custom-token';
/** A token shorter than this is refused at start: it could be guessed. */
export const MIN_TOKEN_LENGTH = 16;

export type AuthChoice =
  | { readonly kind: 'token'; readonly token: string }
  | { readonly kind: 'platform' }
  | { readonly kind: 'none' };

export type ChosenAuth =
  | { readonly kind: 'chosen'; readonly choice: AuthChoice; readonly host: string }
  | { readonly kind: 'refused'; readonly message: string };

const WAYS = `set ${TOKEN_ENV} (callers send it as "Authorization: Bearer <token>" or Snowflake's sf-custom-token header), or start with --auth platform behind Cloud Run with IAM, or --no-auth on a loopback address (--host 127.0.0.1) to try it on this machine`;

export function isLoopbackHost(host: string): boolean {
  return isLoopback(host) || host === '::1';
}

/** The way callers are checked, from the flags and the environment; or why the server must not start. */
export function chooseAuth(given: {
  readonly auth: string | undefined;
  readonly noAuth: boolean;
  readonly host: string | undefined;
  readonly token: string | undefined;
}): ChosenAuth {
  const token = given.token === undefined || given.token === '' ? undefined : given.token;
  if (given.auth !== undefined && given.auth !== 'platform' && given.auth !== 'token')
    return { kind: 'refused', message: `--auth takes platform or token; got "${given.auth}"` };
  if (given.noAuth) {
    if (given.auth !== undefined)
      return { kind: 'refused', message: '--no-auth and --auth cannot go together' };
    const host = given.host ?? '127.0.0.1';
    if (!isLoopbackHost(host))
      return {
        kind: 'refused',
        message: `--no-auth listens on a loopback address only (127.0.0.1, ::1, localhost); got --host ${host}. Anyone who reaches the port could spend with the key: ${WAYS}.`,
      };
    return { kind: 'chosen', choice: { kind: 'none' }, host };
  }
  const host = given.host ?? '0.0.0.0';
  if (given.auth === 'platform') {
    if (token !== undefined)
      return {
        kind: 'refused',
        message: `${TOKEN_ENV} is set but --auth platform trusts the platform's check instead: unset one of them`,
      };
    return { kind: 'chosen', choice: { kind: 'platform' }, host };
  }
  if (token === undefined)
    return {
      kind: 'refused',
      message: `No way to authenticate callers, so the server does not start: ${WAYS}.`,
    };
  if (token.length < MIN_TOKEN_LENGTH || /\s/.test(token))
    return {
      kind: 'refused',
      message: `${TOKEN_ENV} must be at least ${MIN_TOKEN_LENGTH} characters with no spaces (for example: openssl rand -hex 32); got ${token.length} characters`,
    };
  return { kind: 'chosen', choice: { kind: 'token', token }, host };
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** Checks one request's credentials: undefined when it may go on, else why not (said to the caller). */
export function createAuthenticator(
  choice: AuthChoice,
): (headers: IncomingHttpHeaders) => string | undefined {
  if (choice.kind === 'none') return () => undefined;
  if (choice.kind === 'platform') {
    return (headers) =>
      bearer(headers.authorization) === undefined
        ? 'Authorization: Bearer <ID token> is required (the platform checks it before this server)'
        : undefined;
  }
  const expected = digest(choice.token);
  return (headers) => {
    const given = bearer(headers.authorization) ?? single(headers[SNOWFLAKE_TOKEN_HEADER]);
    if (given === undefined)
      return `a token is required: Authorization: Bearer <token>, or the header ${SNOWFLAKE_TOKEN_HEADER}`;
    return timingSafeEqual(digest(given), expected)
      ? undefined
      : 'the token is not the one this server takes';
  };
}

function single(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

function bearer(value: string | undefined): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '');
  return match?.[1];
}
