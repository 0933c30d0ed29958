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
