// Builds the published SDK into dist/sdk/ (run by `build`, so turbo does it before tests and
// packing): an ES module bundle per entry (valibot compiled in, so the package has no runtime
// dependencies) and tsc's declarations beside them. The workspace imports src/ through the same
// entries: `@enrich/core` (the SDK), `@enrich/core/universal` (what Apps Script can run),
// `@enrich/core/fetch-transport`.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const out = join(root, 'dist', 'sdk');

rmSync(out, { recursive: true, force: true });
await build({
  entryPoints: {
    index: join(root, 'src', 'sdk.ts'),
    universal: join(root, 'src', 'index.ts'),
    'fetch-transport': join(root, 'src', 'fetch-transport.ts'),
  },
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  // Neutral: the same files run in Node 20+ and in browsers (fetch, AbortSignal, timers).
  platform: 'neutral',
  target: 'es2022',
  sourcemap: true,
  legalComments: 'linked',
  logLevel: 'warning',
});
// Declarations from the sources; relative imports already end in .js, so they resolve under
// NodeNext as well as Bundler resolution.
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.sdk.json')], { cwd: root, stdio: 'inherit' });
