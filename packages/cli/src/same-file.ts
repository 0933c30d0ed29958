// The three files of a bulk run must be three different files (the engine's check, as a usage error).
import { distinctFiles as check } from '@enrich/bulk';
import { usageError } from './bulk.js';

export function distinctFiles(files: readonly (readonly [flag: string, path: string])[]): void {
  try {
    check(files);
  } catch (error) {
    throw usageError(error);
  }
}
