// A zip written part by part: parts copied from another zip as they are packed (never unpacked
// and packed again: a workbook's other sheets, its shared strings, styles and pictures come out
// byte for byte, at the cost of a copy), and parts deflated from a stream of text. Each part's
// local header gives its sizes and CRC (patched in once a streamed part is written) rather than a
// data descriptor after the data: exceljs's reader finds the end of a part with a data descriptor
// by looking for the descriptor's signature in the packed bytes, which may occur in them by chance.
//
// No zip64: every part and the whole file must be under 4 GiB, which the limits on a workbook's
// parts (zip-limits.ts) keep an output far from; past it the writer stops with an error rather
// than write sizes that do not fit.
import type { FileHandle } from 'node:fs/promises';
import { crc32, createDeflateRaw } from 'node:zlib';
import { dataOffsetOf, packedChunks, type ZipEntry } from './zip-file.js';

const MAX_32 = 0xffffffff;
const UTF8_NAME = 0x0800;
/** MS-DOS time and date of 1 January 1980, 00:00, for a part written now (a zip's earliest). */
const EARLIEST = 0x00210000;
/** Text handed to the deflater in pieces of about this many characters. */
const PIECE_CHARS = 64 * 1024;

interface Written {
  readonly name: Buffer;
  readonly flags: number;
  readonly method: number;
  readonly modified: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly offset: number;
}

export class ZipWriter {
  private offset = 0;
  private readonly written: Written[] = [];

  constructor(private readonly file: FileHandle) {}

  /** A part of the zip `from`, its packed bytes copied as they are. */
  async copy(from: FileHandle, entry: ZipEntry): Promise<void> {
    const name = Buffer.from(entry.name, 'utf8');
    const part: Written = {
      name,
      // The sizes are in the local header now, so no data descriptor follows the data.
      flags: (entry.flags & ~0x0008) | UTF8_NAME,
      method: entry.method,
      modified: entry.modified,
      crc: entry.crc,
      compressedSize: entry.compressedSize,
      size: entry.size,
      offset: this.offset,
    };
    await this.put(localHeader(part));
    for await (const chunk of packedChunks(from, await dataOffsetOf(from, entry), entry.compressedSize)) {
      await this.put(chunk);
    }
    this.add(part);
  }

  /** A part deflated from `text`, its sizes and CRC patched into its local header once written. */
  async deflate(entryName: string, text: AsyncIterable<string>): Promise<void> {
    const name = Buffer.from(entryName, 'utf8');
    const offset = this.offset;
    const blank = {
      name,
      flags: UTF8_NAME,
      method: 8,
      modified: EARLIEST,
      crc: 0,
      compressedSize: 0,
      size: 0,
      offset,
    };
    await this.put(localHeader(blank));
    const deflater = createDeflateRaw();
    let crc = 0;
    let size = 0;
    let compressedSize = 0;
    // The packed bytes go to the file as the deflater gives them; the text waits while they do.
    const packing = (async () => {
      for await (const chunk of deflater as AsyncIterable<Buffer>) {
        compressedSize += chunk.length;
        await this.put(chunk);
      }
    })();
    // A failure writing the file ends the deflater (and the text it waits for) with it.
    packing.catch((error: Error) => deflater.destroy(error));
    const feed = async (piece: string) => {
      const bytes = Buffer.from(piece, 'utf8');
      crc = crc32(bytes, crc);
      size += bytes.length;
      if (!deflater.write(bytes)) {
        await new Promise<void>((resolve, reject) => {
          const done = (error?: Error) => {
            deflater.off('drain', done);
            deflater.off('error', done);
            if (error) reject(error);
            else resolve();
          };
          deflater.on('drain', done);
          deflater.on('error', done);
        });
      }
    };
    try {
      let pending = '';
      for await (const piece of text) {
        pending += piece;
        if (pending.length >= PIECE_CHARS) {
          await feed(pending);
          pending = '';
        }
      }
      if (pending !== '') await feed(pending);
      deflater.end();
      await packing;
    } catch (error) {
      deflater.destroy();
      await packing.catch(() => undefined);
      throw error;
    }
    const part = { ...blank, crc, size, compressedSize };
    await this.file.write(localHeader(part), 0, 30, offset);
    this.add(part);
  }

  /** The central directory and the end record; the file is then a whole zip. */
  async close(): Promise<void> {
    if (this.written.length > 0xffff) throw tooBig('it would hold over 65,535 parts');
    const start = this.offset;
    for (const part of this.written) await this.put(centralHeader(part));
    const end = Buffer.alloc(22);
    end.writeUInt32LE(0x06054b50, 0);
    end.writeUInt16LE(this.written.length, 8);
    end.writeUInt16LE(this.written.length, 10);
    end.writeUInt32LE(this.offset - start, 12);
    end.writeUInt32LE(start, 16);
    await this.put(end);
  }

  private add(part: Written): void {
    if (part.size > MAX_32 || part.compressedSize > MAX_32) {
      throw tooBig(`its part ${part.name.toString()} would unpack to over 4 GiB`);
    }
    this.written.push(part);
  }

  private async put(bytes: Buffer): Promise<void> {
    if (this.offset + bytes.length > MAX_32) throw tooBig('it would be over 4 GiB');
    let done = 0;
    while (done < bytes.length) {
      const { bytesWritten } = await this.file.write(bytes, done, bytes.length - done, this.offset + done);
      done += bytesWritten;
    }
    this.offset += bytes.length;
  }
}

function tooBig(why: string): Error {
  return new Error(`the workbook cannot be written: ${why}, past what a zip without zip64 holds`);
}

function localHeader(part: Written): Buffer {
  const header = Buffer.alloc(30 + part.name.length);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(part.flags, 6);
  header.writeUInt16LE(part.method, 8);
  header.writeUInt32LE(part.modified, 10);
  header.writeUInt32LE(part.crc, 14);
  header.writeUInt32LE(Math.min(part.compressedSize, MAX_32), 18);
  header.writeUInt32LE(Math.min(part.size, MAX_32), 22);
  header.writeUInt16LE(part.name.length, 26);
  header.writeUInt16LE(0, 28);
  part.name.copy(header, 30);
  return header;
}

function centralHeader(part: Written): Buffer {
  const header = Buffer.alloc(46 + part.name.length);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(part.flags, 8);
  header.writeUInt16LE(part.method, 10);
  header.writeUInt32LE(part.modified, 12);
  header.writeUInt32LE(part.crc, 16);
  header.writeUInt32LE(part.compressedSize, 20);
  header.writeUInt32LE(part.size, 24);
  header.writeUInt16LE(part.name.length, 28);
  header.writeUInt32LE(part.offset, 42);
  part.name.copy(header, 46);
  return header;
}
