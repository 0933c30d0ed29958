// Bundles the universal entry into one script for environments without modules: dist/core.global.js
// defines a global `EnrichCore`. test/vm.test.ts runs it in a bare node:vm context to prove the
// universal entry uses nothing Apps Script lacks. (The add-on bundles core itself, with esbuild.)
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
