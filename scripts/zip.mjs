// A minimal ZIP writer (deflate, no directories entries, no extras): enough for the Apps Script
// bundle's archive, without a zip binary or a dependency. Format: PKWARE APPNOTE, local headers,
// then the central directory, then its end record.
import { deflateRawSync } from 'node:zlib';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

export function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

// 1980-01-01 00:00, the DOS epoch: a build's zip does not change with the clock.
const DOS_TIME = 0;
const DOS_DATE = (0 << 9) | (1 << 5) | 1;

/**
 * The fields that a file's local header and its central directory record both hold, in the same
 * order (from "version needed" on), written at `at`: the two must agree for the archive to open.
 */
function writeEntryFields(header, at, entry) {
  header.writeUInt16LE(20, at); // version needed
  header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
  header.writeUInt16LE(8, at + 4); // deflate
  header.writeUInt16LE(DOS_TIME, at + 6);
  header.writeUInt16LE(DOS_DATE, at + 8);
  header.writeUInt32LE(entry.crc, at + 10);
  header.writeUInt32LE(entry.packed.length, at + 14);
  header.writeUInt32LE(entry.size, at + 18);
  header.writeUInt16LE(entry.nameBytes.length, at + 22);
}

/** `files`: [name, Buffer] pairs. Returns the archive. Times are fixed, so the zip is reproducible. */
export function zip(files) {
  const locals = [];
  const centrals = [];
  let offset = 0;
  for (const [name, data] of files) {
    const entry = {
      nameBytes: Buffer.from(name, 'utf8'),
      packed: deflateRawSync(data, { level: 9 }),
      crc: crc32(data),
      size: data.length,
    };
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    writeEntryFields(local, 4, entry);
    local.writeUInt16LE(0, 28); // no extra field
    locals.push(local, entry.nameBytes, entry.packed);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    writeEntryFields(central, 6, entry);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, entry.nameBytes);
    offset += local.length + entry.nameBytes.length + entry.packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
