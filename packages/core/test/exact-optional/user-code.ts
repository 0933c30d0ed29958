// What a user writes with exactOptionalPropertyTypes on: every optional option and input straight
// from the environment, where each is `string | undefined`.
import { createClient } from '../../src/sdk.js';

const client = createClient({
  apiKey: process.env.ENRICH_API_KEY,
  baseUrl: process.env.ENRICH_BASE_URL,
  baseUrlV3: process.env.ENRICH_BASE_URL_V3,
  timeoutMs: process.env.TIMEOUT_MS === undefined ? undefined : Number(process.env.TIMEOUT_MS),
  fetch: undefined,
  retry: { maxAttempts: undefined },
});

const signal: AbortSignal | undefined = undefined;
export const found = await client.phoneLookup({ Phone: process.env.PHONE }, { signal });
export const verified = await client.tcpaVerify({
  phone: process.env.PHONE,
  last_name: process.env.LAST_NAME,
});
