// The entry of dist/sandbox.js, the second bundle: only what "Try Without a Key" needs.
export { startSandboxServer } from '@enrich/sandbox';
