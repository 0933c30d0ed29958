// Bundles the server into dist/ (`pnpm --filter @enrich/functions build`, turbo runs it before tests)
// with the options every published command shares (scripts/node-bundle.mjs: everything compiled in,
// the PostgreSQL driver too, so the package has no runtime dependencies and its tarball installs
// offline). The sandbox is a chunk loaded only by --sandbox. The package's `enrich-functions` bin is
// dist/enrich-functions.mjs; the Dockerfile copies dist/ as it is.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundle } from '../../../scripts/node-bundle.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  ...nodeBundle(root, { 'enrich-functions': join(root, 'src', 'bin.ts') }),
  define: { __ENRICH_FUNCTIONS_VERSION__: JSON.stringify(pkg.version) },
  sourcemap: 'linked',
});
