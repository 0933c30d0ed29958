// The package's entry, `@enrich/core`, the same inside this workspace and on npm (built by
// scripts/build-sdk.mjs): the universal core, plus the client over fetch, the fetch transport and
// the timers they need. Code that must run in Apps Script imports `@enrich/core/universal`
// (src/index.ts), which has none of them.
export * from './abortable-sleep.js';
export * from './client.js';
export type * from './client-types.js';
export * from './fetch-transport.js';
export * from './index.js';
