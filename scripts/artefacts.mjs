// `pnpm artefacts`: every installable artefact in one folder, artefacts/ (git-ignored), after
// `turbo run build` (which the pnpm script runs first):
//   enrich-core-<v>.tgz, enrich-sandbox-<v>.tgz, enrich-cli-<v>.tgz, enrich-mcp-<v>.tgz,
//   enrich-functions-<v>.tgz                        npm tarballs (pnpm pack, so
//                                                   publishConfig and workspace: versions apply)
//   enrich-vscode-<v>.vsix                          the VS Code extension (apps/vscode/scripts/package.mjs)
//   enrich-sheets-<v>.zip                           the Apps Script files of apps/sheets/dist/
// and prints their sizes.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zip } from './zip.mjs';

const root = join(import.meta.dirname, '..');
const out = join(root, 'artefacts');
const version = (dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')).version;

rmSync(out, { recursive: true, force: true });
mkdirSync(out);

for (const pkg of ['core', 'sandbox', 'cli', 'mcp', 'functions']) {
  execFileSync('pnpm', ['pack', '--pack-destination', out], {
    cwd: join(root, 'packages', pkg),
    stdio: 'pipe',
  });
}

execFileSync(process.execPath, ['scripts/package.mjs'], { cwd: join(root, 'apps', 'vscode'), stdio: 'pipe' });
const vsix = `enrich-vscode-${version('apps/vscode')}.vsix`;
copyFileSync(join(root, 'apps', 'vscode', vsix), join(out, vsix));

const sheetsDist = join(root, 'apps', 'sheets', 'dist');
const sheetsFiles = readdirSync(sheetsDist)
  .filter((name) => statSync(join(sheetsDist, name)).isFile())
  .sort()
  .map((name) => [name, readFileSync(join(sheetsDist, name))]);
writeFileSync(join(out, `enrich-sheets-${version('apps/sheets')}.zip`), zip(sheetsFiles));

const rows = readdirSync(out)
  .sort()
  .map((name) => [name, statSync(join(out, name)).size]);
const width = Math.max(...rows.map(([name]) => name.length));
console.log(`artefacts/ (${rows.length} files)`);
for (const [name, size] of rows)
  console.log(`  ${name.padEnd(width)}  ${(size / 1024).toFixed(1).padStart(7)} KiB`);
