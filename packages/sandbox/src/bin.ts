// Entry of the built `enrich-sandbox` command (dist/enrich-sandbox.mjs, scripts/build.mjs): the same
// command as src/cli.ts, which `pnpm sandbox` runs from the sources through tsx.
import './cli.js';
