// The universal entry of @enrich/core: runs in Node, browsers and Apps Script's V8, so nothing
// reachable from here may use Node, the DOM, fetch, timers, URL, TextEncoder, structuredClone,
// Buffer or process (test/vm.test.ts proves it on the bundle).
export * from './batch.js';
export * from './billing.js';
export * from './breakdown.js';
export * from './breakdown-text.js';
export * from './call.js';
export * from './catalog.js';
export * from './column-mapping.js';
export * from './email.js';
export * from './errors.js';
export { type InputField, type InputLooks, inputValue } from './fields.js';
export * from './flatten.js';
export * from './http.js';
export * from './key-check.js';
export * from './keys.js';
export * from './ledger.js';
export * from './likely.js';
export * from './memory-cache.js';
export * from './normalise.js';
export * from './openapi.js';
export type { CountedAs, GroupField, LeafField, Looks, OutputField, OutputShape } from './outputs.js';
export * from './pace/pace.js';
export * from './pace/pace-changes.js';
export { type RateLimitHint, readRateLimit } from './pace/rate-headers.js';
export * from './pace/remembered-pace.js';
export * from './request.js';
export * from './request-key.js';
export * from './response.js';
export * from './retry.js';
export * from './rules.js';
export * from './settings.js';
export * from './shared-requests.js';
export * from './stored-outcome.js';
export * from './tool-schema.js';
export * from './validate.js';
export * from './vocabulary/index.js';
