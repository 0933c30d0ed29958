// The version `enrich-functions --version` prints and GET /healthz answers. The bundle
// (scripts/build.mjs) has it written in at build time; run from the sources, it is read from
// package.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

declare const __ENRICH_FUNCTIONS_VERSION__: string | undefined;

export function functionsVersion(): string {
  if (typeof __ENRICH_FUNCTIONS_VERSION__ === 'string') return __ENRICH_FUNCTIONS_VERSION__;
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
  return String(pkg.version);
}
