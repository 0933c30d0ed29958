// The first bytes of a file, read at once: enough to see its BOM, its line end and its header row
// without opening a stream.
import { closeSync, readSync } from 'node:fs';
import { openRegularFile } from '../run/file-guard.js';

export const FILE_START_BYTES = 64 * 1024;

/** Up to FILE_START_BYTES from the start of a regular file; throws what openSync throws. */
export function readFileStart(path: string): Buffer {
  const start = Buffer.alloc(FILE_START_BYTES);
  const fd = openRegularFile(path);
  try {
    return start.subarray(0, readSync(fd, start, 0, start.length, 0));
  } finally {
    closeSync(fd);
  }
}
