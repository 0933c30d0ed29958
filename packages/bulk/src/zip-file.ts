// A zip read from its end, without unzipping it: where its central directory is (from the
// end-of-central-directory record that closes every zip), and one small part found through it.
//
// A zip is written front to back with its directory last, so a file cut short (a
// download or copy that stopped) has none. The engine refuses such a workbook before exceljs
// starts on it: exceljs copies each sheet it meets to a temp file, and when the zip then breaks it
// never deletes them, so copies of the user's rows would stay in the temp directory until the
// process exits (for a VS Code window or an MCP server, hours).
import { type FileHandle, open } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';

interface ZipDirectory {
  readonly offset: number;
  readonly size: number;
}

/** The end record's size without its comment, and the longest comment it may have after it. */
const END_RECORD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;

/**
 * The central directory's place, 'zip64' when the end record says it is given in a zip64 record
 * (a zip over 4 GiB or 65,535 entries), or undefined when the file does not end as a whole zip does.
 */
async function zipDirectoryOf(file: FileHandle): Promise<ZipDirectory | 'zip64' | undefined> {
  const { size } = await file.stat();
  const tailLength = Math.min(size, END_RECORD_BYTES + MAX_COMMENT_BYTES);
  const tail = await readAt(file, size - tailLength, tailLength);
  for (let at = tail.length - END_RECORD_BYTES; at >= 0; at--) {
    if (tail.readUInt32LE(at) !== 0x06054b50) continue;
    const directory = { size: tail.readUInt32LE(at + 12), offset: tail.readUInt32LE(at + 16) };
    if (directory.offset === 0xffffffff || directory.size === 0xffffffff) return 'zip64';
    return directory.offset + directory.size <= size - tailLength + at ? directory : undefined;
  }
  return undefined;
}

/** Whether the file at `path` ends as a whole zip does (a zip64 counts as one). */
export async function endsAsZip(path: string): Promise<boolean> {
  const file = await open(path, 'r');
  try {
    return (await zipDirectoryOf(file)) !== undefined;
  } catch {
    // Shorter than its own end record says: cut short as well.
    return false;
  } finally {
    await file.close();
  }
}

/**
 * One part of a zip, found through its central directory and inflated, up to `maxBytes` packed or
 * unpacked; undefined when it is not there, bigger, or stored in a way other than deflate or none.
 */
export async function readZipEntry(
  file: FileHandle,
  wanted: string,
  maxBytes: number,
): Promise<Buffer | undefined> {
  const place = await zipDirectoryOf(file);
  // A zip64's real offsets are elsewhere; no workbook part a client asks for is that far in.
  if (place === undefined || place === 'zip64') return undefined;
  const directory = await readAt(file, place.offset, place.size);
  for (let at = 0; at + 46 <= directory.length && directory.readUInt32LE(at) === 0x02014b50; ) {
    const method = directory.readUInt16LE(at + 10);
    const compressedSize = directory.readUInt32LE(at + 20);
    const nameLength = directory.readUInt16LE(at + 28);
    const extraLength = directory.readUInt16LE(at + 30);
    const commentLength = directory.readUInt16LE(at + 32);
    const localOffset = directory.readUInt32LE(at + 42);
    const name = directory.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (name !== wanted) continue;
    if (compressedSize > maxBytes) return undefined;
    const local = await readAt(file, localOffset, 30);
    if (local.readUInt32LE(0) !== 0x04034b50) return undefined;
    const dataOffset = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const data = await readAt(file, dataOffset, compressedSize);
    if (method === 0) return data;
    if (method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes });
    return undefined;
  }
  return undefined;
}

/** `length` bytes from `position`; throws when the file is shorter. */
async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length) throw new Error('the file is shorter than its zip directory says');
  return buffer;
}
