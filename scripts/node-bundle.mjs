// The esbuild options of a published command-line package (the CLI, the sandbox): each entry
// bundled into dist/<name>.mjs for Node 20+, everything compiled in (our workspace packages and the
// npm packages alike), so the package has no runtime dependencies and its tarball installs offline.
// The package's build script adds what is its own (a version constant, source maps) and runs esbuild.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * archiver-utils 2.1.0 (under exceljs, which writes .xlsx outputs) calls `new Buffer()`, deprecated.
 * Node warns about that only for code outside node_modules, which a bundle is: every .xlsx output
 * printed "DeprecationWarning: Buffer() is deprecated" from the bundle in the repository and in VS
 * Code. Its three calls are made the modern ones; the build fails if a version brings another.
 */
export const modernBuffer = {
  name: 'modern-buffer',
  setup(b) {
    b.onLoad({ filter: /[\\/]archiver-utils[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const modern = source
        .replace('var buf = new Buffer(size);', 'var buf = Buffer.alloc(size);')
        .replace('return new Buffer(0);', 'return Buffer.alloc(0);')
        .replace('return new Buffer(source);', 'return Buffer.from(source);');
      if (modern.includes('new Buffer('))
        throw new Error(`${args.path}: a new Buffer() call this build does not replace`);
      return { contents: modern, loader: 'js' };
    });
  },
};

/** `root`: the package's folder; `entryPoints`: output name to source file. */
export function nodeBundle(root, entryPoints) {
  return {
    entryPoints,
    outdir: join(root, 'dist'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Entries share their common code as chunks; what only one path loads stays out of the others.
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
    // Minified: less to parse at start-up (`enrich --help` is measured by the benchmark).
    minify: true,
    plugins: [modernBuffer],
    legalComments: 'external',
    logLevel: 'warning',
  };
}
