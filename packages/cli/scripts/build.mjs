// Bundles the command into dist/ (`pnpm --filter @enrich/cli build`, turbo runs it before tests)
// with the options every published command shares (scripts/node-bundle.mjs: everything compiled in,
// no runtime dependencies). The sandbox (and its self-signed certificate library) is a chunk loaded
// only by --sandbox. bin/enrich.mjs (tsx) stays the way to run the sources without building; the
// package's `enrich` bin is dist/enrich.mjs.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundle } from '../../../scripts/node-bundle.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  ...nodeBundle(root, { enrich: join(root, 'src', 'bin.ts') }),
  // `enrich --version` prints the version of the package it was built from.
  define: { __ENRICH_CLI_VERSION__: JSON.stringify(pkg.version) },
  sourcemap: 'linked',
});
