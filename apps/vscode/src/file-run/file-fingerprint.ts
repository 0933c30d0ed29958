// The file a plan was made from, to tell at confirmation whether it is still that file: its size and
// a SHA-256 of its bytes, taken before the plan reads it (so that a change while it reads is caught
// too). Why not the modification time: it has a granularity of a second or two on some file
// systems, copying tools keep it, and an edit of the same length (one digit of a phone changed)
// inside that granularity keeps size and time alike; the bytes themselves are what the plan counted.
// The size is compared first, without reading (rows appended while the modal was open); the hash
// then reads the file once more, a cost of the order of the plan's own read. A file touched without
// a change is not refused.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';

export interface FileFingerprint {
  readonly size: number;
  readonly sha256: string;
}

/** The file's size and hash, read from one pass over its bytes; rejects when it cannot be read. */
export async function fingerprint(path: string): Promise<FileFingerprint> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(path)) {
    const bytes = chunk as Buffer;
    size += bytes.length;
    hash.update(bytes);
  }
  return { size, sha256: hash.digest('hex') };
}

/** What changed in the file since `before`, in words; undefined when it is the same file. */
export async function changeSince(path: string, before: FileFingerprint): Promise<string | undefined> {
  try {
    const size = (await stat(path)).size;
    if (size !== before.size) return sizeChange(before.size, size);
    const now = await fingerprint(path);
    // Read whole, it may have changed length since the stat.
    if (now.size !== before.size) return sizeChange(before.size, now.size);
    return now.sha256 === before.sha256 ? undefined : 'its content changed';
  } catch (error) {
    return `it can no longer be read: ${(error as Error).message}`;
  }
}

function sizeChange(before: number, now: number): string {
  return `it ${now > before ? 'grew' : 'shrank'} from ${bytes(before)} to ${bytes(now)} bytes`;
}

function bytes(count: number): string {
  return count.toLocaleString('en-US');
}
