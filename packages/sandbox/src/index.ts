export {
  HUGE_BODY_BYTES,
  MISBEHAVE_DESCRIPTIONS,
  MISBEHAVE_HEADER,
  MISBEHAVE_MODES,
  type MisbehaveMode,
  type MisbehaveParse,
  parseMisbehave,
  TRICKLE_INTERVAL_MS,
} from './misbehave.js';
export { RESERVED, type Reserved, type ReservedOutcome, reservedOutcome, SLOW_MS } from './reserved.js';
export {
  ADMIN_PREFIX,
  createSandbox,
  DEMO_KEY,
  type Sandbox,
  type SandboxKnobs,
  type SandboxOptions,
  type SandboxRequest,
  type SandboxResponse,
  type Stats,
} from './sandbox.js';
export { type SandboxServer, type ServerOptions, startSandboxServer } from './server.js';
