// The library entry of the published package (dist/index.mjs, with declarations in dist/types):
// start the sandbox from a test suite instead of as a separate process. Inside this workspace,
// tests import src/index.ts, which also exposes the reserved-input helpers.
export {
  ADMIN_HEADER,
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
