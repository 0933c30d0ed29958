// Prints, or with --write puts into package.json, the `contributes` section derived from the core
// catalog by src/manifest.ts. A unit test checks package.json holds exactly this.
import { readFileSync, writeFileSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const { contributes: contributesFromCatalog } = await tsImport('../src/manifest.ts', import.meta.url);
const contributes = contributesFromCatalog();

if (process.argv.includes('--write')) {
  const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
  manifest.contributes = contributes;
  writeFileSync('package.json', `${JSON.stringify(manifest, null, 2)}\n`);
  console.log('package.json: contributes written from the core catalog');
} else {
  console.log(JSON.stringify(contributes, null, 2));
}
