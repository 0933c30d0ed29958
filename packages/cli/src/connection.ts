// Where requests go and with which key: flags, then environment variables, then core's defaults;
// or, with --sandbox, the embedded sandbox started in this process.
import { type Bases, cacheNamespace } from '@enrich/bulk';
import {
  API_KEY_ENV,
  BASE_URL_ENV,
  BASE_URL_V3_ENV,
  checkApiKey,
  checkBaseUrl,
  DEFAULT_BASE_URL,
  DEFAULT_BASE_URL_V3,
  type Operation,
  type Settings,
} from '@enrich/core';
import { CommandError, EXIT } from './exit-codes.js';
import { type PromptIo, promptHidden } from './prompt.js';

export interface ConnectionFlags {
  readonly sandbox?: boolean;
  readonly baseUrl?: string;
  readonly baseUrlV3?: string;
}

export interface Connection {
  readonly settings: Settings;
  /** Where the requests go (the embedded sandbox's port included): the namespace and the ledger's origin. */
  readonly bases: Bases;
  close(): Promise<void>;
}

export interface ConnectIo extends PromptIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Told a key typed at the prompt, so that the scrubber hides it too. */
  readonly onSecret?: (secret: string) => void;
}

/** The base URLs, checked, without a key: enough for a dry run and for naming the cache namespace. */
export function endpoints(flags: ConnectionFlags, env: ConnectIo['env']): Bases {
  if (flags.sandbox) return { baseUrl: 'http://127.0.0.1', baseUrlV3: 'http://127.0.0.1', sandbox: true };
  const baseUrl = flags.baseUrl ?? env[BASE_URL_ENV] ?? DEFAULT_BASE_URL;
  const baseUrlV3 = flags.baseUrlV3 ?? env[BASE_URL_V3_ENV] ?? DEFAULT_BASE_URL_V3;
  for (const [label, url] of [
    ['--base-url', baseUrl],
    ['--base-url-v3', baseUrlV3],
  ] as const) {
    const checked = checkBaseUrl(label, url);
    if (!checked.ok) throw new CommandError(checked.message, EXIT.usage);
  }
  return { baseUrl, baseUrlV3, sandbox: false };
}

/**
 * Whose answers a command's answer cache holds: named by @enrich/bulk, as for the VS Code extension
 * and the MCP server, so that all share one cache.
 */
export function answerNamespace(op: Operation, flags: ConnectionFlags, env: ConnectIo['env']): string {
  return cacheNamespace(op, endpoints(flags, env));
}

/** The key and where it goes: `where`, the bases the command already checked (endpoints), or the sandbox. */
export async function connect(
  flags: ConnectionFlags,
  io: ConnectIo,
  where: Bases = endpoints(flags, io.env),
): Promise<Connection> {
  if (flags.sandbox) {
    // Loaded only when asked for: a real run has no use for it.
    const { DEMO_KEY, startSandboxServer } = await import('@enrich/sandbox');
    const server = await startSandboxServer({ host: '127.0.0.1', port: 0 });
    return {
      settings: { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url },
      bases: { baseUrl: server.url, baseUrlV3: server.url, sandbox: true },
      close: () => server.close(),
    };
  }
  const given = flags.baseUrl ?? flags.baseUrlV3 ?? io.env[BASE_URL_ENV] ?? io.env[BASE_URL_V3_ENV];
  // Not trimmed: a key with a space or a line break in it (`$(cat keyfile)`) is a copy mistake,
  // refused before any request by core's checkApiKey, with a message that does not print it.
  let apiKey = io.env[API_KEY_ENV];
  if (apiKey === undefined || apiKey.trim() === '') {
    const situation = given
      ? `No API key: ${API_KEY_ENV} is not set.`
      : `No API key and no base URL: ${API_KEY_ENV} is not set, and requests would go to the default ${where.baseUrl} (v2) and ${where.baseUrlV3} (v3).`;
    const advice = `Set ${API_KEY_ENV} (and ${BASE_URL_ENV} / ${BASE_URL_V3_ENV} or --base-url / --base-url-v3 for another service), or add --sandbox to try the embedded sandbox.`;
    if (!io.stdin.isTTY) throw new CommandError(`${situation}\n${advice}`, EXIT.auth);
    io.stderr.write(`${situation}\n${advice}\n`);
    apiKey = await promptHidden('API key (not shown as you type): ', io);
    if (apiKey) io.onSecret?.(apiKey);
    if (!apiKey || apiKey.trim() === '') throw new CommandError('No API key given.', EXIT.auth);
  }
  const problem = checkApiKey(apiKey);
  if (problem) {
    const source = io.env[API_KEY_ENV] === apiKey ? ` The key came from ${API_KEY_ENV}.` : '';
    throw new CommandError(`${problem}${source} Nothing was sent.`, EXIT.auth);
  }
  return {
    settings: { apiKey, baseUrl: where.baseUrl, baseUrlV3: where.baseUrlV3 },
    bases: where,
    close: async () => undefined,
  };
}
