// The three files of a bulk run must be three different files. Compared as real paths, so that a
// symbolic link, `./in.csv` against `in.csv`, or a directory link cannot pass one file for two.
import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { BulkError } from './bulk-error.js';

/** The path with every link resolved, as far as the file (or its nearest existing parent) exists. */
export function realPath(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    const parent = dirname(absolute);
    if (parent === absolute) return absolute;
    return join(realPath(parent), basename(absolute));
  }
}

/** Throws a usage error naming the two flags when any two paths are one file. */
export function distinctFiles(files: readonly (readonly [flag: string, path: string])[]): void {
  const seen = new Map<string, string>();
  for (const [flag, path] of files) {
    const real = realPath(path);
    const other = seen.get(real);
    if (other !== undefined) {
      throw new BulkError(
        `${flag} and ${other} name the same file (${path}); give each its own file. Nothing was sent.`,
      );
    }
    seen.set(real, flag);
  }
}
