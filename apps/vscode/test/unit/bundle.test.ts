// The built bundles (turbo runs `build` before `test`): nothing left outside them but `vscode`,
// Node's own modules, and the sandbox bundle the extension loads lazily.
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
    // The other two bundles, required only by "Try Without a Key" and "Enrich File...".
    expect(required.filter((name) => name !== 'vscode' && !builtins.has(name)).sort()).toEqual([
      './csv.js',
      './sandbox.js',
    ]);
  });

  it('leaves the sandbox out of the activation bundle: its own file, loaded on first use', () => {
    const bundle = readFileSync(new URL('../../dist/extension.js', import.meta.url), 'utf8');
    const sandbox = readFileSync(new URL('../../dist/sandbox.js', import.meta.url), 'utf8');
    // The sandbox's misbehave header is a string only its server code holds.
    expect(sandbox).toContain('x-sandbox-misbehave');
    expect(bundle).not.toContain('x-sandbox-misbehave');
    // No certificate generator (node-forge) inside: the extension's sandbox serves plain HTTP.
    expect(sandbox).not.toMatch(/node-forge|pkcs12/i);
  });

  it('leaves the bulk engine out of the activation bundle too', () => {
    const bundle = readFileSync(new URL('../../dist/extension.js', import.meta.url), 'utf8');
    const csv = readFileSync(new URL('../../dist/csv.js', import.meta.url), 'utf8');
    // csv-parse's own error code, and the engine's journal file name.
    for (const marker of ['CSV_INVALID_CLOSING_QUOTE', '.enrich-cache.jsonl']) {
      expect(csv).toContain(marker);
      expect(bundle).not.toContain(marker);
    }
    const required = [...csv.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? '');
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    // exceljs, required only when a workbook is read or written.
    expect(required.filter((name) => name !== 'vscode' && !builtins.has(name))).toEqual(['./excel.js']);
  });

  it('leaves exceljs out of the bulk engine: its own file, loaded only for a workbook', () => {
    const csv = readFileSync(new URL('../../dist/csv.js', import.meta.url), 'utf8');
    const excel = readFileSync(new URL('../../dist/excel.js', import.meta.url), 'utf8');
    // The stream writer's part names, which only exceljs holds.
    expect(excel).toContain('xl/sharedStrings.xml');
    expect(csv).not.toContain('xl/sharedStrings.xml');
    const required = [...excel.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1] ?? '');
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    expect(required.filter((name) => !builtins.has(name))).toEqual([]);
  });
});
