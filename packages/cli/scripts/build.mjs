// Bundles the command into dist/ (`pnpm --filter @enrich/cli build`): our workspace packages
// (core, and the sandbox as a chunk loaded only by --sandbox) are compiled in, npm packages stay
// imports. The bundle starts in a third of the time and memory of running the TypeScript through
// tsx; bin/enrich.mjs (tsx) stays the way to run the sources without building.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !name.startsWith('@enrich/'));

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
  external,
  sourcemap: 'linked',
  logLevel: 'warning',
});
