// Bundles the command into dist/ (`pnpm --filter @enrich/cli build`, turbo runs it before tests):
// everything is compiled in, our workspace packages and the npm packages alike, so the published
// package has no runtime dependencies and `npm install -g` of its tarball works offline. The
// sandbox (and its self-signed certificate library) is a chunk loaded only by --sandbox.
// bin/enrich.mjs (tsx) stays the way to run the sources without building; the package's `enrich`
// bin is dist/enrich.mjs.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { enrich: join(root, 'src', 'bin.ts') },
  outdir: join(root, 'dist'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // CommonJS packages inside an ESM bundle call require('crypto') and the like, which esbuild can
  // only forward to a `require` in scope: give every chunk one (the usual createRequire banner).
  // Without it the bundled sandbox crashed with 'Dynamic require of "crypto" is not supported'.
  banner: {
    js: "import { createRequire as __enrichCreateRequire } from 'node:module'; const require = __enrichCreateRequire(import.meta.url);",
  },
  // `enrich --version` prints the version of the package it was built from.
  define: { __ENRICH_CLI_VERSION__: JSON.stringify(pkg.version) },
  // Minified: less to parse at start-up (`enrich --help` is measured by the benchmark).
  minify: true,
  legalComments: 'external',
  sourcemap: 'linked',
  logLevel: 'warning',
});
