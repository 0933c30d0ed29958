// The version `enrich-mcp --version` prints and the server reports. The bundle (scripts/build.mjs)
// has it written in at build time; run from the sources, it is read from package.json.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

declare const __ENRICH_MCP_VERSION__: string | undefined;

export function mcpVersion(): string {
  if (typeof __ENRICH_MCP_VERSION__ === 'string') return __ENRICH_MCP_VERSION__;
  const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8'));
  return String(pkg.version);
}
