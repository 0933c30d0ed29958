// The entry of the published SDK (`@enrich/core` on npm, built by scripts/build-sdk.mjs): the
// universal core, plus the client over fetch and the fetch transport. Inside this workspace,
// `@enrich/core` stays the universal entry (src/index.ts), which Apps Script can run.
export * from './client.js';
export type * from './client-types.js';
export * from './fetch-transport.js';
export * from './index.js';
