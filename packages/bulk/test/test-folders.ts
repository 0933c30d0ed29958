// The user's folders of every test file: the cache folder (pace.json, the MCP server's answers),
// the data folder (the suppression list, caches.jsonl, the forget log) and the spend ledger. Without
// this, a test (or a process it starts: the CLI, the MCP server, the functions server) that names
// none of them writes into the real user's ~/.cache/enrich and ~/.local/share/enrich: a developer's
// machine polluted, and a pace remembered by one test that changes how a later test's run starts.
//
// Each package's vitest config runs it as a setup file (`setupFiles`), so before every test file:
// each variable that is not set already (CI or a developer may point one elsewhere) is set, in
// process.env, to a fresh temporary folder of that file's; processes started with the test's
// environment inherit it. The folder is removed, and the variables unset, when the file is done.
// A helper that builds a child's environment from scratch spreads `testFolders()`; a test of the
// default locations passes `withDefaultFolders(env)` and points HOME or XDG_* somewhere of its own.
//
// Other packages name it as `@enrich/bulk/test-folders`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { DATA_DIR_ENV } from '../src/forget/data-folder.js';
import { CACHE_DIR_ENV } from '../src/store/cache-folder.js';
import { LEDGER_ENV } from '../src/store/ledger-file.js';

/** Each variable and where it points in the test file's folder (the ledger in the data folder, as by default). */
const FOLDERS: readonly (readonly [string, string])[] = [
  [CACHE_DIR_ENV, 'cache'],
  [DATA_DIR_ENV, 'data'],
  [LEDGER_ENV, join('data', 'ledger.jsonl')],
];

const isSet = (name: string) => (process.env[name] ?? '').trim() !== '';

let root: string | undefined;
const ours: string[] = [];
for (const [name, path] of FOLDERS) {
  if (isSet(name)) continue;
  root ??= mkdtempSync(join(tmpdir(), 'enrich-test-folders-'));
  process.env[name] = join(root, path);
  ours.push(name);
}

const removeOurs = () => {
  for (const name of ours.splice(0)) delete process.env[name];
  if (root !== undefined) rmSync(root, { recursive: true, force: true });
  root = undefined;
};
// Outside vitest (a script that imports a test helper) there is no file to end: the process's exit.
if (process.env.VITEST) afterAll(removeOurs);
else process.on('exit', removeOurs);

/** The three variables as this test file's processes get them: for an environment built from scratch. */
export function testFolders(): Record<string, string> {
  return Object.fromEntries(
    FOLDERS.flatMap(([name]) => (isSet(name) ? [[name, process.env[name] as string]] : [])),
  );
}

/** `env` without the three variables: HOME and XDG_* decide the folders (a test of the defaults). */
export function withDefaultFolders(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const rest = { ...env };
  for (const [name] of FOLDERS) delete rest[name];
  return rest;
}
