import { readFileSync } from 'node:fs';
import { OPERATIONS } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { CATEGORY, contributes, operationCommandId } from '../../src/manifest';
import { SETTINGS } from '../../src/settings-schema';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

describe('package.json', () => {
  it('contributes exactly what src/manifest.ts derives from the core catalog (pnpm run manifest)', () => {
    expect(manifest.contributes).toEqual(JSON.parse(JSON.stringify(contributes())));
  });

  it('has one "Enrichment: <title>" command per operation', () => {
    const titles = manifest.contributes.commands
      .filter((c: { command: string }) => c.command.startsWith('enrich.run.'))
      .map((c: { category: string; title: string }) => `${c.category}: ${c.title}`);
    expect(titles).toEqual(OPERATIONS.map((op) => `${CATEGORY}: ${op.title}`));
    expect(OPERATIONS.map(operationCommandId)).toEqual(
      manifest.contributes.commands.slice(0, OPERATIONS.length).map((c: { command: string }) => c.command),
    );
  });

  it('activates only on its commands and views, and targets the VS Code that code-server 4.100.3 bundles', () => {
    expect(manifest.activationEvents ?? []).toEqual([]);
    expect(manifest.engines.vscode).toBe('^1.100.0');
    expect(manifest.devDependencies['@types/vscode']).toBe('1.100.0');
    expect(manifest.main).toBe('./dist/extension.js');
  });

  it('keeps settings without any key among them', () => {
    expect(Object.keys(manifest.contributes.configuration.properties)).toEqual(
      Object.keys(SETTINGS).map((name) => `enrich.${name}`),
    );
    expect(JSON.stringify(manifest.contributes.configuration).toLowerCase()).not.toMatch(/apikey|api key"/);
  });
});
