// The three files of a run are three different files (same-file.ts), compared as real paths: the
// journal appended to the input, or the output written over it, would destroy the user's data.
import { readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BulkError } from '../src/run/bulk-error.js';
import { distinctFiles } from '../src/run/same-file.js';
import { defaultCachePath, defaultOutputPath } from '../src/store/files.js';
import { tempDir, writeCsv } from './fixtures.js';
import { op, phone } from './sandbox-run.js';

describe('the three files of a run', () => {
  it('refuses --cache equal to --in or --out, also through a link or another spelling; no file is touched', () => {
    const dir = tempDir();
    const input = writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const before = readFileSync(input);
    symlinkSync(input, join(dir, 'link.csv'));
    // The files as a client names them: --in, --out (beside the input by default), --cache (beside
    // the output), each as spelled (not normalised).
    const files = (given: { out?: string; cache?: string }) => {
      const outPath = given.out ? `${dir}/${given.out}` : defaultOutputPath(input, op);
      const cachePath = given.cache ? `${dir}/${given.cache}` : defaultCachePath(outPath);
      return [
        ['--in', input],
        ['--out', outPath],
        ['--cache', cachePath],
      ] as const;
    };
    for (const given of [
      { cache: 'in.csv' },
      { cache: './sub/../in.csv' },
      { cache: 'link.csv' },
      { out: 'o.csv', cache: 'o.csv' },
      { out: 'link.csv' },
    ]) {
      let refused: unknown;
      try {
        distinctFiles(files(given));
      } catch (error) {
        refused = error;
      }
      expect(refused, JSON.stringify(given)).toBeInstanceOf(BulkError);
      expect((refused as BulkError).message).toMatch(/name the same file/);
    }
    expect(readFileSync(input).equals(before)).toBe(true);
  });
});
