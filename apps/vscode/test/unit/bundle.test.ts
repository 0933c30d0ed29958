// The built bundle (turbo runs `build` before `test`): nothing left outside it but `vscode` and
// Node's own modules.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { describe, expect, it } from 'vitest';

describe('dist/extension.js', () => {
  it('requires only vscode and Node built-ins', () => {
    execFileSync(process.execPath, ['scripts/build.mjs'], { cwd: new URL('../..', import.meta.url) });
    const bundle = readFileSync(new URL('../../dist/extension.js', import.meta.url), 'utf8');
    const required = [...bundle.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? '');
    expect(required).toContain('vscode');
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    expect(required.filter((name) => name !== 'vscode' && !builtins.has(name))).toEqual([]);
  });
});
