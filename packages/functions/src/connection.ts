// Where requests go and with which key: the environment (as the CLI reads it), or the embedded
// sandbox with its demo key (--sandbox). Unlike the MCP server, a missing or malformed key stops the
// server at start: a warehouse function without a key could only fail every row, and a deployment
// should fail where it is made, not in the middle of a query.
import type { Bases } from '@enrich/bulk';
import {
  checkApiKey,
  checkBaseUrl,
  DEFAULT_BASE_URL,
  DEFAULT_BASE_URL_V3,
  halfLocalBases,
  type Settings,
} from '@enrich/core';
import { type Config, ENV } from './config.js';

export interface Connection {
  readonly bases: Bases;
  readonly settings: Settings;
  /** The key, for the scrubber (never shown). */
  readonly secret: string | undefined;
  close(): Promise<void>;
}

export class ConfigError extends Error {}

export async function connect(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): Promise<Connection> {
  if (config.sandbox) {
    // Loaded only when asked for: a real deployment has no use for it.
    const { DEMO_KEY, startSandboxServer } = await import('@enrich/sandbox');
    const server = await startSandboxServer({ host: '127.0.0.1', port: 0 });
    return {
      bases: { baseUrl: server.url, baseUrlV3: server.url, sandbox: true },
      settings: { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url },
      secret: undefined,
      close: () => server.close(),
    };
  }
  const half = halfLocalBases(
    { baseUrl: config.baseUrl, baseUrlV3: config.baseUrlV3 },
    { baseUrl: `--base-url (${ENV.baseUrl})`, baseUrlV3: `--base-url-v3 (${ENV.baseUrlV3})` },
  );
  if (half) throw new ConfigError(half);
  const baseUrl = config.baseUrl || DEFAULT_BASE_URL;
  const baseUrlV3 = config.baseUrlV3 || DEFAULT_BASE_URL_V3;
  for (const [label, url] of [
    [`${ENV.baseUrl} (--base-url)`, baseUrl],
    [`${ENV.baseUrlV3} (--base-url-v3)`, baseUrlV3],
  ] as const) {
    const checked = checkBaseUrl(label, url);
    if (!checked.ok) throw new ConfigError(checked.message);
  }
  // Not trimmed: a key with a space or a line break in it is a copy mistake, refused by checkApiKey
  // with a message that does not show it.
  const apiKey = env[ENV.apiKey];
  if (apiKey === undefined || apiKey.trim() === '')
    throw new ConfigError(
      `No API key: set ${ENV.apiKey} in the server's environment (on Cloud Run, from Secret Manager), or start with --sandbox to try it without one.`,
    );
  const problem = checkApiKey(apiKey);
  if (problem) throw new ConfigError(`${problem} The key came from ${ENV.apiKey}.`);
  return {
    bases: { baseUrl, baseUrlV3, sandbox: false },
    settings: { apiKey, baseUrl, baseUrlV3 },
    secret: apiKey,
    close: async () => undefined,
  };
}
