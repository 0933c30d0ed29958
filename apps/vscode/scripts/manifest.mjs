// Prints, or with --write puts into package.json, the `contributes` section derived from the core
// catalog by src/manifest.ts. A unit test checks package.json holds exactly this.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const bundled = await build({
  entryPoints: ['src/manifest.ts'],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  write: false,
  logLevel: 'warning',
});
const module = { exports: {} };
new Function('module', 'exports', 'require', bundled.outputFiles[0].text)(
  module,
  module.exports,
  createRequire(import.meta.url),
);
const contributes = module.exports.contributes();

if (process.argv.includes('--write')) {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  manifest.contributes = contributes;
  writeFileSync('package.json', `${JSON.stringify(manifest, null, 2)}\n`);
  console.log('package.json: contributes written from the core catalog');
} else {
  console.log(JSON.stringify(contributes, null, 2));
}
