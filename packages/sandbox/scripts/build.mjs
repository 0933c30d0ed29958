// Bundles the `enrich-sandbox` command into dist/enrich-sandbox.mjs and the library entry (src/lib.ts)
// into dist/index.mjs, with tsc's declarations in dist/types (`pnpm --filter @enrich/sandbox build`,
// turbo runs it before tests and packing): core and the self-signed certificate library are
// compiled in, so the published package has no runtime dependencies and installs offline.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  entryPoints: { 'enrich-sandbox': join(root, 'src', 'bin.ts'), index: join(root, 'src', 'lib.ts') },
  outdir: join(root, 'dist'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // The command and the library share one chunk of code.
  splitting: true,
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

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.lib.json')], { cwd: root, stdio: 'inherit' });
