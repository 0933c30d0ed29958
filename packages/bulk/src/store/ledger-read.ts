// Reading the spend ledger (ledger-file.ts), bounded. The ledger's path can be anything the user's
// ENRICH_LEDGER names, and reading "the whole file" of some things never ends: /dev/zero and
// /dev/full give endless zeros (the read grew memory until the process died: `enrich spend` hung), a
// FIFO blocks whoever opens it for reading until a writer comes. So only a regular file is read
// (opened without blocking, then checked, before a byte is read), and only as far as it reached when
// opened: lines appended meanwhile by a run are for the next read. It is read in chunks of whole
// lines, so no single string grows with the ledger.
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { type LedgerEntry, type LedgerRead, readLedger } from '@enrich/core';
import { nodeKind } from '../run/file-guard.js';

/** What is read at once; a line torn across two chunks is carried to the next. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * A ledger line is a few hundred bytes (ledger-file.ts: "far under 4 KB"). A longer run of bytes
 * with no newline is not one: it is skipped, counted, and never held whole (a file of no newlines
 * would otherwise be gathered into one string).
 */
const MAX_LINE_BYTES = 64 * 1024;

/** The ledger's path names something other than a regular file (a device, a FIFO, a folder...). */
export class LedgerNotAFile extends Error {
  constructor(
    readonly path: string,
    /** What it is, in words (file-guard.ts's nodeKind): "a device". */
    readonly kind: string,
  ) {
    super(`the spend ledger ${path} is ${kind}, not a regular file`);
    this.name = 'LedgerNotAFile';
  }
}

/**
 * The entries of the ledger at `path` and how many lines were skipped; throws LedgerNotAFile for
 * anything but a regular file, and what the file system throws (ENOENT for a missing one).
 */
export function readLedgerFile(path: string, chunkBytes = CHUNK_BYTES): LedgerRead {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer (forever). It changes
  // nothing for a regular file. (Windows has no such flag, and no FIFO to open this way.)
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = fstatSync(fd);
    const kind = nodeKind(stats);
    if (kind !== undefined) throw new LedgerNotAFile(path, kind);
    return readLines(fd, stats.size, chunkBytes);
  } finally {
    closeSync(fd);
  }
}

// The first `size` bytes of the file, parsed a chunk of whole lines at a time.
function readLines(fd: number, size: number, chunkBytes: number): LedgerRead {
  const entries: LedgerEntry[] = [];
  let skipped = 0;
  const take = (text: string) => {
    const read = readLedger(text);
    for (const entry of read.entries) entries.push(entry);
    skipped += read.skipped;
  };
  const chunk = Buffer.alloc(Math.min(chunkBytes, Math.max(size, 1)));
  // The start of a line whose end is in a later chunk (a copy: the chunk is read into again).
  let carried = Buffer.alloc(0);
  // Within a line too long to be a ledger line: dropped up to its newline.
  let dropping = false;
  let position = 0;
  while (position < size) {
    const got = readSync(fd, chunk, 0, Math.min(chunk.length, size - position), position);
    // Shorter than when opened (truncated meanwhile): what is there is all there is.
    if (got === 0) break;
    position += got;
    let data = chunk.subarray(0, got);
    if (dropping) {
      const newline = data.indexOf(0x0a);
      if (newline < 0) continue;
      dropping = false;
      data = data.subarray(newline + 1);
    }
    const bytes = carried.length > 0 ? Buffer.concat([carried, data]) : data;
    const end = bytes.lastIndexOf(0x0a);
    if (end >= 0) take(bytes.subarray(0, end + 1).toString('utf8'));
    carried = Buffer.from(bytes.subarray(end + 1));
    if (carried.length > MAX_LINE_BYTES) {
      skipped++;
      carried = Buffer.alloc(0);
      dropping = true;
    }
  }
  // The last line, with no newline after it (complete, or torn by a crash: readLedger skips it).
  if (carried.length > 0) take(carried.toString('utf8'));
  return { entries, skipped };
}
