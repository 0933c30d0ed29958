// A zip read from its end, without unzipping it: its central directory (found through the
// end-of-central-directory record that closes every zip, and the zip64 records of a zip that has
// them), one part inflated through it, or a part's packed bytes for copying as they are.
//
// A zip is written front to back with its directory last, so a file cut short (a
// download or copy that stopped) has none. The engine refuses such a workbook before exceljs
// starts on it: exceljs copies each sheet it meets to a temp file, and when the zip then breaks it
// never deletes them, so copies of the user's rows would stay in the temp directory until the
// process exits (for a VS Code window or an MCP server, hours). The directory also gives each
// part's size before anything is unpacked, which zip-limits.ts checks.
import { type FileHandle, open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { crc32, createInflateRaw, inflateRawSync } from 'node:zlib';

/** A part of a zip as its central directory gives it. */
export interface ZipEntry {
  readonly name: string;
  /** 0: stored as it is; 8: deflated. */
  readonly method: number;
  /** General purpose flags (bit 11: the name is UTF-8). */
  readonly flags: number;
  /** Its modification time and date, as MS-DOS writes them (time in the low 16 bits). */
  readonly modified: number;
  readonly crc: number;
  /** Packed and unpacked sizes, in bytes. */
  readonly compressedSize: number;
  readonly size: number;
  /** Where its local header starts. */
  readonly localOffset: number;
}

/** The end record's size without its comment, and the longest comment it may have after it. */
const END_RECORD_BYTES = 22;
const MAX_COMMENT_BYTES = 0xffff;
const ZIP64_LOCATOR_BYTES = 20;
const ZIP64_END_RECORD_BYTES = 56;
/**
 * The largest central directory read. A workbook's has one entry of about 80 bytes per part
 * (a few KB; 5 MB for the 65,535 parts a zip without zip64 can hold): anything bigger is not a
 * workbook, and reading it whole would be a way to exhaust memory before any limit is checked.
 */
const MAX_DIRECTORY_BYTES = 16 * 1024 * 1024;

/** Why a zip's directory could not be read: the file does not end as a whole zip does. */
class NotAZip extends Error {}

/**
 * The central directory's place and number of entries, from the end record (or the zip64 end
 * record it points to, for a zip over 4 GiB or 65,535 parts, or one written by a tool that always
 * writes one); NotAZip when the file does not end as a whole zip does.
 */
async function directoryPlace(file: FileHandle): Promise<{ offset: number; size: number; count: number }> {
  const { size } = await file.stat();
  const tailLength = Math.min(size, END_RECORD_BYTES + MAX_COMMENT_BYTES);
  const tailStart = size - tailLength;
  const tail = await readAt(file, tailStart, tailLength);
  for (let at = tail.length - END_RECORD_BYTES; at >= 0; at--) {
    if (tail.readUInt32LE(at) !== 0x06054b50) continue;
    const endAt = tailStart + at;
    let place = {
      count: tail.readUInt16LE(at + 10),
      size: tail.readUInt32LE(at + 12),
      offset: tail.readUInt32LE(at + 16),
    };
    let directoryEnd = endAt;
    // A zip64 locator just before the end record points to the zip64 end record, whose fields
    // replace the end record's (which then hold 0xFFFF... where a value did not fit).
    if (endAt >= ZIP64_LOCATOR_BYTES) {
      const locator = await readAt(file, endAt - ZIP64_LOCATOR_BYTES, ZIP64_LOCATOR_BYTES);
      if (locator.readUInt32LE(0) === 0x07064b50) {
        const recordAt = big(locator, 8);
        const record = await readAt(file, recordAt, ZIP64_END_RECORD_BYTES);
        if (record.readUInt32LE(0) !== 0x06064b50) throw new NotAZip();
        place = { count: big(record, 32), size: big(record, 40), offset: big(record, 48) };
        directoryEnd = recordAt;
      }
    }
    if (place.offset + place.size > directoryEnd) throw new NotAZip();
    return place;
  }
  throw new NotAZip();
}

/** The zip's directory, or undefined when the file does not end as a whole zip does. */
export async function readZipDirectoryAt(path: string): Promise<ZipEntry[] | undefined> {
  const file = await open(path, 'r');
  try {
    return await readZipDirectory(file);
  } finally {
    await file.close();
  }
}

/** The zip's directory, or undefined when the file does not end as a whole zip does (cut short). */
export async function readZipDirectory(file: FileHandle): Promise<ZipEntry[] | undefined> {
  try {
    const place = await directoryPlace(file);
    if (place.size > MAX_DIRECTORY_BYTES) return undefined;
    return parseDirectory(await readAt(file, place.offset, place.size), place.count);
  } catch (error) {
    // Shorter than its own records say, or records that do not hold together: cut short as well.
    if (error instanceof NotAZip || error instanceof RangeError) return undefined;
    throw error;
  }
}

function parseDirectory(directory: Buffer, count: number): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let at = 0;
  while (entries.length < count) {
    if (at + 46 > directory.length || directory.readUInt32LE(at) !== 0x02014b50) throw new NotAZip();
    const nameLength = directory.readUInt16LE(at + 28);
    const extraLength = directory.readUInt16LE(at + 30);
    const commentLength = directory.readUInt16LE(at + 32);
    const end = at + 46 + nameLength + extraLength + commentLength;
    if (end > directory.length) throw new NotAZip();
    let compressedSize = directory.readUInt32LE(at + 20);
    let size = directory.readUInt32LE(at + 24);
    let localOffset = directory.readUInt32LE(at + 42);
    // The zip64 extra field holds, in this order, those of the three that did not fit in 32 bits.
    const extra = directory.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength);
    for (let e = 0; e + 4 <= extra.length; ) {
      const id = extra.readUInt16LE(e);
      const length = extra.readUInt16LE(e + 2);
      if (id === 0x0001) {
        let field = e + 4;
        const next = () => {
          const value = big(extra, field);
          field += 8;
          return value;
        };
        if (size === 0xffffffff) size = next();
        if (compressedSize === 0xffffffff) compressedSize = next();
        if (localOffset === 0xffffffff) localOffset = next();
      }
      e += 4 + length;
    }
    entries.push({
      name: directory.toString('utf8', at + 46, at + 46 + nameLength),
      method: directory.readUInt16LE(at + 10),
      flags: directory.readUInt16LE(at + 8),
      modified: directory.readUInt32LE(at + 12),
      crc: directory.readUInt32LE(at + 16),
      compressedSize,
      size,
      localOffset,
    });
    at = end;
  }
  return entries;
}

/** Where a part's packed bytes start: after its local header, whose name and extra field vary. */
export async function dataOffsetOf(file: FileHandle, entry: ZipEntry): Promise<number> {
  const local = await readAt(file, entry.localOffset, 30);
  if (local.readUInt32LE(0) !== 0x04034b50) throw new Error(`${entry.name} has no local header`);
  return entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
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
  const entry = (await readZipDirectory(file))?.find((e) => e.name === wanted);
  if (entry === undefined || entry.compressedSize > maxBytes) return undefined;
  const data = await readAt(file, await dataOffsetOf(file, entry), entry.compressedSize);
  if (entry.method === 0) return data;
  if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes });
  return undefined;
}

/**
 * A part's unpacked bytes as a stream of chunks, never more than its directory says it holds (a
 * zip may lie there: the rest is refused, not inflated) and checked against its CRC at the end.
 */
export async function* inflatedEntry(file: FileHandle, entry: ZipEntry): AsyncGenerator<Buffer> {
  if (entry.method !== 0 && entry.method !== 8) {
    throw new Error(`${entry.name} is packed in a way this cannot unpack (method ${entry.method})`);
  }
  const start = await dataOffsetOf(file, entry);
  const packed = Readable.from(packedChunks(file, start, entry.compressedSize));
  const inflater = entry.method === 8 ? createInflateRaw() : undefined;
  if (inflater) {
    packed.on('error', (error) => inflater.destroy(error));
    packed.pipe(inflater);
  }
  let seen = 0;
  let crc = 0;
  try {
    for await (const chunk of (inflater ?? packed) as AsyncIterable<Buffer>) {
      seen += chunk.length;
      if (seen > entry.size) throw new Error(`${entry.name} unpacks to more than its zip directory says`);
      crc = crc32(chunk, crc);
      yield chunk;
    }
  } finally {
    // Stopped early (the reader failed): nothing more is read or inflated.
    packed.destroy();
    inflater?.destroy();
  }
  if (seen !== entry.size || crc !== entry.crc) {
    throw new Error(`${entry.name} does not unpack to what its zip directory says`);
  }
}

/** `length` bytes from `start`, in chunks of 256 KB. */
export async function* packedChunks(file: FileHandle, start: number, length: number): AsyncGenerator<Buffer> {
  const CHUNK = 256 * 1024;
  for (let done = 0; done < length; ) {
    const piece = await readAt(file, start + done, Math.min(CHUNK, length - done));
    done += piece.length;
    yield piece;
  }
}

/** `length` bytes from `position`; throws when the file is shorter. */
async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length) throw new NotAZip('the file is shorter than its zip directory says');
  return buffer;
}

/** A 64-bit field, as a number (no file this reads is near 2^53 bytes). */
function big(buffer: Buffer, at: number): number {
  const value = buffer.readBigUInt64LE(at);
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) throw new NotAZip();
  return Number(value);
}
