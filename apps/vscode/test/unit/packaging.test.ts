// Ready for the Marketplace and Open VSX: the manifest has what the stores ask for, packaging
// prints no warning, and the .vsix holds exactly what should ship.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

function run(args: string[]): string {
  // stderr joined to stdout: vsce prints its warnings on either.
  return execFileSync('sh', ['-c', `"${process.execPath}" scripts/package.mjs ${args.join(' ')} 2>&1`], {
    cwd: root,
    encoding: 'utf8',
  });
}

describe('the extension package', () => {
  it('has a licence, repository, categories, keywords, a changelog and a 128x128 PNG icon', () => {
    expect(manifest.license).toBe('MIT');
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
    expect(manifest.repository.url).toMatch(/^https:\/\//);
    expect(manifest.categories.length).toBeGreaterThan(0);
    expect(manifest.keywords.length).toBeGreaterThan(0);
    expect(readFileSync(join(root, 'CHANGELOG.md'), 'utf8')).toContain(`## ${manifest.version}`);
    const icon = readFileSync(join(root, manifest.icon));
    expect(icon.subarray(1, 4).toString('ascii')).toBe('PNG');
    expect([icon.readUInt32BE(16), icon.readUInt32BE(20)]).toEqual([128, 128]);
  });

  it('vsce ls lists only what ships', () => {
    const listed = run(['--ls'])
      .split('\n')
      .filter((line) => line !== '' && !line.includes('KiB'));
    expect(listed.sort()).toEqual(
      [
        'CHANGELOG.md',
        'LICENSE',
        'README.md',
        'dist/extension.js',
        'dist/sandbox.js',
        'dist/csv.js',
        'dist/excel.js',
        'media/enrich.svg',
        'media/icon.png',
        'package.json',
      ].sort(),
    );
  });

  it('packaging prints no warning and writes the .vsix', () => {
    const output = run([]);
    expect(output).toContain('DONE  Packaged');
    expect(output).not.toMatch(/warn/i);
    expect(existsSync(join(root, `enrich-vscode-${manifest.version}.vsix`))).toBe(true);
  });
});
