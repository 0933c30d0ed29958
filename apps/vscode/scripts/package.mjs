// Builds the .vsix: a minified bundle, then @vscode/vsce on a staging folder that holds only what
// ships (package.json, README.md, CHANGELOG.md, LICENSE, the icons and the four bundles dist/extension.js, sandbox.js, csv.js and excel.js, as
// .vscodeignore also lists). The staging manifest renames the workspace package `@enrich/vscode` to
// `enrich-vscode`, since an extension's name may not carry a scope, and drops what only the
// workspace needs. Everything is bundled, so --no-dependencies.
// `node scripts/package.mjs --ls` prints `vsce ls` of the staging folder instead of packaging.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

export const EXTENSION_NAME = 'enrich-vscode';
const root = resolve(import.meta.dirname, '..');
const staging = join(root, 'dist', 'vsix');

execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production'], {
  cwd: root,
  stdio: 'inherit',
});

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { devDependencies: _dev, scripts: _scripts, private: _private, ...shipped } = manifest;
shipped.name = EXTENSION_NAME;
const vsix = join(root, `${EXTENSION_NAME}-${manifest.version}.vsix`);

rmSync(staging, { recursive: true, force: true });
mkdirSync(join(staging, 'dist'), { recursive: true });
writeFileSync(join(staging, 'package.json'), `${JSON.stringify(shipped, null, 2)}\n`);
for (const file of ['README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore']) {
  cpSync(join(root, file), join(staging, file));
}
cpSync(join(root, 'media'), join(staging, 'media'), { recursive: true });
for (const file of ['extension.js', 'sandbox.js', 'csv.js', 'excel.js'])
  cpSync(join(root, 'dist', file), join(staging, 'dist', file));

const vsce = join(dirname(createRequire(import.meta.url).resolve('@vscode/vsce/package.json')), 'vsce');
if (process.argv.includes('--ls')) {
  execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: staging, stdio: 'inherit' });
  process.exit(0);
}
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', vsix], {
  cwd: staging,
  stdio: 'inherit',
});
console.log(`${vsix.slice(root.length + 1)}: ${(statSync(vsix).size / 1024).toFixed(1)} KiB`);
