// Shared by the process tests: one sandbox per test file (sandbox-per-file.ts), and the answer
// journal read back as request keys.
import { existsSync, readFileSync } from 'node:fs';
import { parseLine } from '@enrich/bulk';

export { env, server, useSandbox } from './sandbox-per-file.js';

export function journalKeys(path: string): Set<string> {
  if (!existsSync(path)) return new Set();
  const keys = new Set<string>();
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    const line = parseLine(text);
    if (line) keys.add(line.key);
  }
  return keys;
}

export function keyOf(body: string): string {
  return `phone-lookup:${JSON.stringify([['Phone', JSON.parse(body).Phone]])}`;
}
