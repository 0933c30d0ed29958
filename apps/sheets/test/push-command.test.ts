// The push command (scripts/deploy.mjs) is not run in CI: it needs a Google login and a project.
// What can be checked without either: it refuses to push without a .clasp.json of your own, and
// the listing files the Marketplace asks for are there. Skipped where a real .clasp.json exists,
// so that running the tests on a developer's machine never pushes anything.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

describe('pnpm --filter @enrich/sheets push', () => {
  it.skipIf(existsSync(join(root, '.clasp.json')))(
    'stops before building or pushing without .clasp.json',
    () => {
      const ran = spawnSync(process.execPath, ['scripts/deploy.mjs'], { cwd: root, encoding: 'utf8' });
      expect(ran.status).toBe(1);
      expect(ran.stderr).toContain('no .clasp.json: copy .clasp.json.example');
      expect(ran.stdout).toBe('');
    },
  );

  it('the example .clasp.json pushes dist/ only', () => {
    expect(JSON.parse(readFileSync(join(root, '.clasp.json.example'), 'utf8')).rootDir).toBe('dist');
  });

  it('the listing has 32x32 and 128x128 PNG icons and the privacy and terms templates', () => {
    for (const [file, size] of [
      ['icon-32.png', 32],
      ['icon-128.png', 128],
    ] as const) {
      const png = readFileSync(join(root, 'listing', file));
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([size, size]);
    }
    expect(readFileSync(join(root, 'listing', 'PRIVACY.md'), 'utf8')).toContain('script.external_request');
    expect(readFileSync(join(root, 'listing', 'TERMS.md'), 'utf8')).toContain('consumer-report');
  });
});
