// Bundles the universal entry into one script for environments without modules: the vm test and
// the Apps Script add-on load dist/core.global.js, which defines a global `EnrichCore`.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/index.ts'],
  bundle: true,
  format: 'iife',
  globalName: 'EnrichCore',
  platform: 'neutral',
  target: 'es2020',
  outfile: 'dist/core.global.js',
  legalComments: 'none',
  logLevel: 'warning',
});
await build({
  entryPoints: ['src/index.ts'],
  bundle: true,
  format: 'iife',
  globalName: 'EnrichCore',
  platform: 'neutral',
  target: 'es2020',
  minify: true,
  outfile: 'dist/core.global.min.js',
  legalComments: 'none',
  logLevel: 'warning',
  metafile: false,
});
