// A front in a process of its own that claims one key and holds it until it is killed (the
// PostgreSQL store's takeover test SIGKILLs it). Run with `node --import tsx`; reads
// ENRICH_TEST_URL, ENRICH_TEST_SCHEMA, ENRICH_TEST_KEY and ENRICH_TEST_TTL_MS.
import { PostgresStore } from '../src/store/postgres-store.ts';

const env = process.env;
const front = await PostgresStore.open({
  url: env.ENRICH_TEST_URL,
  schema: env.ENRICH_TEST_SCHEMA,
  namespace: 'sandbox',
  maxAgeMs: Number.POSITIVE_INFINITY,
  claimTtlMs: Number(env.ENRICH_TEST_TTL_MS),
});
const claim = await front.claim(env.ENRICH_TEST_KEY);
process.stdout.write(`${claim.kind}\n`);
// Holds the claim (renewing it) until killed.
setInterval(() => {}, 60_000);
