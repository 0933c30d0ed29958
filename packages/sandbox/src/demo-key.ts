/**
 * The sandbox's public demo key: not a secret. A module of its own so that clients can import it
 * without bundling the server (`@enrich/sandbox/demo-key`).
 */
export const DEMO_KEY = 'sandbox-demo-key';
