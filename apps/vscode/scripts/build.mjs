// Bundles the extension and everything it uses (core included) into dist/extension.js; only the
// `vscode` module, which VS Code provides, stays outside. `--production` minifies (the .vsix).
import { build } from 'esbuild';

const production = process.argv.includes('--production');

const result = await build({
  entryPoints: ['src/extension.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  outfile: 'dist/extension.js',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
});
const bytes = Object.values(result.metafile.outputs).find((o) => o.entryPoint)?.bytes ?? 0;
console.log(`dist/extension.js: ${(bytes / 1024).toFixed(1)} KiB${production ? ' (minified)' : ''}`);
