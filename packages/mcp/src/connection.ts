// Where requests go and with which key: the environment (as the CLI reads it), or the embedded
// sandbox with its demo key (--sandbox). A missing or malformed key does not stop the server: the
// tools are listed, free ones work, and a paid call says what to set (nothing is sent).
import type { Bases } from '@enrich/bulk';
import {
  checkApiKey,
  checkBaseUrl,
  DEFAULT_BASE_URL,
  DEFAULT_BASE_URL_V3,
  type Settings,
} from '@enrich/core';
import { type Config, ENV } from './config.js';

/** One attempt's deadline, as the CLI's default --timeout (a single call's and the key check's). */
export const TIMEOUT_MS = 30_000;

export interface Connection {
  readonly bases: Bases;
  /** The key and bases, or undefined with the reason (no key, a key with a space...) in keyProblem. */
  readonly settings: Settings | undefined;
  readonly keyProblem: string | undefined;
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
    // Loaded only when asked for: a real server has no use for it.
    const { DEMO_KEY, startSandboxServer } = await import('@enrich/sandbox');
    const server = await startSandboxServer({ host: '127.0.0.1', port: 0 });
    return {
      bases: { baseUrl: server.url, baseUrlV3: server.url, sandbox: true },
      settings: { apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url },
      keyProblem: undefined,
      secret: undefined,
      close: () => server.close(),
    };
  }
  const baseUrl = config.baseUrl || DEFAULT_BASE_URL;
  const baseUrlV3 = config.baseUrlV3 || DEFAULT_BASE_URL_V3;
  for (const [label, url] of [
    [`${ENV.baseUrl} (--base-url)`, baseUrl],
    [`${ENV.baseUrlV3} (--base-url-v3)`, baseUrlV3],
  ] as const) {
    const checked = checkBaseUrl(label, url);
    if (!checked.ok) throw new ConfigError(checked.message);
  }
  const bases: Bases = { baseUrl, baseUrlV3, sandbox: false };
  // Not trimmed: a key with a space or a line break in it is a copy mistake, refused by checkApiKey
  // with a message that does not show it.
  const apiKey = env[ENV.apiKey];
  const keyProblem =
    apiKey === undefined || apiKey.trim() === ''
      ? `No API key: ${ENV.apiKey} is not set in the server's environment. Set it in the MCP client's configuration of enrich-mcp, or start the server with --sandbox to try it without a key. Nothing was sent.`
      : (() => {
          const problem = checkApiKey(apiKey);
          return problem ? `${problem} The key came from ${ENV.apiKey}. Nothing was sent.` : undefined;
        })();
  return {
    bases,
    settings: keyProblem || apiKey === undefined ? undefined : { apiKey, baseUrl, baseUrlV3 },
    keyProblem,
    secret: apiKey,
    close: async () => undefined,
  };
}
