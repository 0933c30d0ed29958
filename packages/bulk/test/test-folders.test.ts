// The setup file test-folders.ts (vitest.config.ts's setupFiles): this test file, and every process
// it starts with its environment, names a cache folder, a data folder and a spend ledger, so that
// none is the user's default in their home folder. (Not imported here: importing it would set them
// whether or not the config runs it.)
import { execFileSync } from 'node:child_process';
import { homedir } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  CACHE_DIR_ENV,
  cacheFolder,
  DATA_DIR_ENV,
  dataFolder,
  LEDGER_ENV,
  ledgerPath,
} from '../src/index.js';

const RULES = [
  [CACHE_DIR_ENV, cacheFolder],
  [DATA_DIR_ENV, dataFolder],
  [LEDGER_ENV, ledgerPath],
] as const;

describe("the folders of a test file's", () => {
  it.each(RULES)('%s is set, so the folder is not the default in the home folder', (name, decide) => {
    expect(process.env[name]?.trim()).toBeTruthy();
    const { [name]: _, ...without } = process.env;
    const used = decide(process.env, process.platform, homedir());
    expect(used).toBe(process.env[name]);
    expect(used).not.toBe(decide(without, process.platform, homedir()));
  });

  it('a process started with the test’s environment inherits them', () => {
    const script = `process.stdout.write(JSON.stringify([${RULES.map(([name]) => `process.env.${name}`).join(',')}]))`;
    const said = JSON.parse(execFileSync(process.execPath, ['-e', script], { encoding: 'utf8' }));
    expect(said).toEqual(RULES.map(([name]) => process.env[name]));
    expect(said.every((path: unknown) => typeof path === 'string')).toBe(true);
  });
});
