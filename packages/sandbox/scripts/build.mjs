// Bundles the `enrich-sandbox` command into dist/enrich-sandbox.mjs and the library entry (src/lib.ts)
// into dist/index.mjs, with tsc's declarations in dist/types (`pnpm --filter @enrich/sandbox build`,
// turbo runs it before tests and packing). The options are those every published command shares
// (scripts/node-bundle.mjs): core and the self-signed certificate library are compiled in, so the
// published package has no runtime dependencies and installs offline; the command and the library
// share one chunk of code.
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundle } from '../../../scripts/node-bundle.mjs';

const root = join(import.meta.dirname, '..');

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build(
  nodeBundle(root, { 'enrich-sandbox': join(root, 'src', 'bin.ts'), index: join(root, 'src', 'lib.ts') }),
);

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.lib.json')], { cwd: root, stdio: 'inherit' });
