// Bundles the extension and everything it uses (core included) into dist/extension.js; only the
// `vscode` module, which VS Code provides, stays outside. The sandbox that "Try Without a Key"
// starts is a second bundle, dist/sandbox.js (from src/trial/sandbox-bundle.ts), and Enrich File
// (the bulk engine, from src/file-run/flow.ts) a third, dist/csv.js: each is loaded only when the
// user asks for it, so activation parses neither. exceljs, which the engine loads only to read or
// write an Excel workbook, is a fourth, dist/excel.js (about 1 MB): a CSV run never parses it.
// `--production` minifies (the .vsix).
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { modernBuffer } from '../../../scripts/node-bundle.mjs';

const production = process.argv.includes('--production');

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: production,
  sourcemap: !production,
  sourcesContent: false,
  legalComments: 'none',
  metafile: true,
  logLevel: 'warning',
};

// `import('@enrich/sandbox')` in the extension becomes `require('./sandbox.js')` at run time, and
// `import('./flow')` in src/file-run/command.ts (Enrich File: the bulk engine and its libraries)
// `require('./csv.js')`.
const lazyOutside = {
  name: 'lazy-outside',
  setup(b) {
    b.onResolve({ filter: /^@enrich\/sandbox$/ }, () => ({ path: './sandbox.js', external: true }));
    b.onResolve({ filter: /^\.\/flow$/ }, (args) =>
      args.kind === 'dynamic-import' && /[\\/]file-run$/.test(args.resolveDir)
        ? { path: './csv.js', external: true }
        : undefined,
    );
  },
};

// `import('exceljs')` in the engine (a workbook read or written) becomes `require('./excel.js')`.
const excelOutside = {
  name: 'excel-outside',
  setup(b) {
    b.onResolve({ filter: /^exceljs$/ }, (args) =>
      args.kind === 'dynamic-import' ? { path: './excel.js', external: true } : undefined,
    );
  },
};
// exceljs as the engine resolves it (a dependency of @enrich/bulk, not of the extension).
const excelEntry = createRequire(createRequire(import.meta.url).resolve('@enrich/bulk')).resolve('exceljs');

// The sandbox can serve HTTPS with a generated certificate (the `selfsigned` package, node-forge:
// hundreds of KiB). Inside the extension it serves plain HTTP on loopback only, so that code stays out.
const noHttps = {
  name: 'no-https',
  setup(b) {
    b.onResolve({ filter: /^selfsigned$/ }, () => ({ path: 'selfsigned', namespace: 'no-https' }));
    b.onLoad({ filter: /.*/, namespace: 'no-https' }, () => ({
      contents:
        'export function generate() { throw new Error("The sandbox inside the extension serves plain HTTP on loopback only"); }',
      loader: 'js',
    }));
  },
};

const bundles = [
  {
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    plugins: [lazyOutside],
    // import() becomes require() inside a promise: the extension host loads CommonJS.
    supported: { 'dynamic-import': false },
  },
  { entryPoints: ['src/trial/sandbox-bundle.ts'], outfile: 'dist/sandbox.js', plugins: [noHttps] },
  {
    entryPoints: ['src/file-run/flow.ts'],
    outfile: 'dist/csv.js',
    external: ['vscode'],
    plugins: [excelOutside],
    supported: { 'dynamic-import': false },
  },
  // CommonJS: module.exports is exceljs, which `require('./excel.js')` above returns.
  { entryPoints: [excelEntry], outfile: 'dist/excel.js', plugins: [modernBuffer] },
];

for (const options of bundles) {
  const result = await build({ ...common, ...options });
  const bytes = Object.values(result.metafile.outputs).find((o) => o.entryPoint)?.bytes ?? 0;
  console.log(`${options.outfile}: ${(bytes / 1024).toFixed(1)} KiB${production ? ' (minified)' : ''}`);
}
