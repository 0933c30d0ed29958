// Bundles the `enrich-sandbox` command into dist/enrich-sandbox.mjs (`pnpm --filter @enrich/sandbox
// build`, turbo runs it before tests and packing): core and the self-signed certificate library are
// compiled in, so the published package has no runtime dependencies and installs offline.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { 'enrich-sandbox': join(root, 'src', 'bin.ts') },
  outdir: join(root, 'dist'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // The certificate library is CommonJS and calls require('crypto'): an ESM bundle needs a
  // `require` in scope for esbuild to forward such calls to (the usual createRequire banner).
  banner: {
    js: "import { createRequire as __sandboxCreateRequire } from 'node:module'; const require = __sandboxCreateRequire(import.meta.url);",
  },
  minify: true,
  legalComments: 'external',
  logLevel: 'warning',
});
