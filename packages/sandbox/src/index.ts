// The workspace entry: the library entry (src/lib.ts, what the published package exports) and the
// reserved-input and misbehaviour helpers that the workspace's tests and clients also use.
export * from './lib.js';
export {
  ECHO_KEY_HEADER,
  HUGE_BODY_BYTES,
  MISBEHAVE_DESCRIPTIONS,
  MISBEHAVE_HEADER,
  MISBEHAVE_MODES,
  type MisbehaveMode,
  type MisbehaveParse,
  parseMisbehave,
  TRICKLE_INTERVAL_MS,
} from './misbehave.js';
export { mulberry32 } from './random.js';
export { RESERVED, type Reserved, type ReservedOutcome, reservedOutcome, SLOW_MS } from './reserved.js';
export { ADMIN_PREFIX } from './sandbox.js';
