// Builds the .vsix: a minified bundle, then @vscode/vsce on a staging folder that holds only what
// ships (package.json, README.md, the icon and dist/extension.js). The staging manifest renames the
// workspace package `@enrich/vscode` to `enrich-vscode`, since an extension's name may not carry a
// scope, and drops what only the workspace needs. Everything is bundled, so --no-dependencies.
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
shipped.files = ['dist/extension.js', 'media', 'README.md'];
const vsix = join(root, `${EXTENSION_NAME}-${manifest.version}.vsix`);

rmSync(staging, { recursive: true, force: true });
mkdirSync(join(staging, 'dist'), { recursive: true });
writeFileSync(join(staging, 'package.json'), `${JSON.stringify(shipped, null, 2)}\n`);
cpSync(join(root, 'README.md'), join(staging, 'README.md'));
cpSync(join(root, 'media'), join(staging, 'media'), { recursive: true });
cpSync(join(root, 'dist', 'extension.js'), join(staging, 'dist', 'extension.js'));

const vsce = join(dirname(createRequire(import.meta.url).resolve('@vscode/vsce/package.json')), 'vsce');
// No repository or licence file is published for this internal extension: say so, so that vsce
// does not stop to ask (CI has no stdin).
execFileSync(
  process.execPath,
  [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', vsix],
  { cwd: staging, stdio: 'inherit' },
);
console.log(`${vsix.slice(root.length + 1)}: ${(statSync(vsix).size / 1024).toFixed(1)} KiB`);
