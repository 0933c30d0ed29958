// The version `enrich --version` prints. The bundle (scripts/build.mjs) has it written in at build
// time from package.json; run from the sources (tsx, tests), it is read from package.json here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

declare const __ENRICH_CLI_VERSION__: string | undefined;

export function cliVersion(): string {
  if (typeof __ENRICH_CLI_VERSION__ === 'string') return __ENRICH_CLI_VERSION__;
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
  return String(pkg.version);
}
