// Bundles the server into dist/ (`pnpm --filter @enrich/mcp build`, turbo runs it before tests)
// with the options every published command shares (scripts/node-bundle.mjs: everything compiled in,
// the MCP SDK and zod too, so the package has no runtime dependencies). The sandbox is a chunk loaded
// only by --sandbox. The package's `enrich-mcp` bin is dist/enrich-mcp.mjs.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { nodeBundle } from '../../../scripts/node-bundle.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

rmSync(join(root, 'dist'), { recursive: true, force: true });
await build({
  ...nodeBundle(root, { 'enrich-mcp': join(root, 'src', 'bin.ts') }),
  define: { __ENRICH_MCP_VERSION__: JSON.stringify(pkg.version) },
  sourcemap: 'linked',
});
