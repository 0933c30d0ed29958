// A zip's central directory read from its end (zip-file.ts), in the zip64 form too: some tools
// (.NET's packaging among them) write a zip64 end record into every workbook, and a zip64 extra
// field can give a part's size past 4 GiB, so the limits on a workbook (zip-limits.ts) must read
// sizes there as well, or a bomb would pass them by saying 0xFFFFFFFF.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { openSource } from '../src/formats/open-source.js';
import { readZipDirectoryAt } from '../src/formats/zip-file.js';
import { useTempDir } from './fixtures.js';

const at = useTempDir();

interface Part {
  readonly name: string;
  readonly text: string;
  /** The unpacked size its directory gives in a zip64 extra field, in place of its own. */
  readonly says?: number;
}

/** A zip of `parts`, its directory closed by a zip64 end record and locator, as .NET writes one. */
function zip64(parts: readonly Part[]): Buffer {
  const out: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const name = Buffer.from(part.name);
    const data = deflateRawSync(Buffer.from(part.text));
    const size = Buffer.byteLength(part.text);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(45, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const extra = Buffer.alloc(part.says === undefined ? 0 : 12);
    if (part.says !== undefined) {
      extra.writeUInt16LE(0x0001, 0);
      extra.writeUInt16LE(8, 2);
      extra.writeBigUInt64LE(BigInt(part.says), 4);
    }
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(45, 4);
    central.writeUInt16LE(45, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(part.says === undefined ? size : 0xffffffff, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(extra.length, 30);
    central.writeUInt32LE(offset, 42);
    directory.push(central, name, extra);
    out.push(local, name, data);
    offset += 30 + name.length + data.length;
  }
  const list = Buffer.concat(directory);
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeUInt16LE(45, 14);
  record.writeBigUInt64LE(BigInt(parts.length), 24);
  record.writeBigUInt64LE(BigInt(parts.length), 32);
  record.writeBigUInt64LE(BigInt(list.length), 40);
  record.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + list.length), 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...out, list, record, locator, end]);
}

describe('a zip64 directory', () => {
  it('is read through its zip64 end record: every part, its sizes and where it starts', async () => {
    const path = join(at.dir, 'zip64.xlsx');
    writeFileSync(
      path,
      zip64([
        { name: '[Content_Types].xml', text: '<Types/>' },
        { name: 'xl/workbook.xml', text: '<workbook/>'.repeat(50) },
      ]),
    );
    const entries = await readZipDirectoryAt(path);
    expect(entries?.map(({ name, size, method }) => ({ name, size, method }))).toEqual([
      { name: '[Content_Types].xml', size: 8, method: 8 },
      { name: 'xl/workbook.xml', size: 550, method: 8 },
    ]);
    expect(entries?.[1]?.localOffset).toBe(
      30 + '[Content_Types].xml'.length + (entries?.[0]?.compressedSize ?? 0),
    );
  });

  it("gives a part's size in its zip64 extra field: one of 5 GiB is refused by the limits, before anything is unpacked", async () => {
    const path = join(at.dir, 'big.xlsx');
    writeFileSync(
      path,
      zip64([
        { name: '[Content_Types].xml', text: '<Types/>' },
        { name: 'xl/worksheets/sheet1.xml', text: '<worksheet/>', says: 5 * 1024 ** 3 },
      ]),
    );
    await expect(openSource(path)).rejects.toThrow(
      `${path} is refused: its part xl/worksheets/sheet1.xml unpacks to 5,120 MiB, over the limit of 2,048 MiB for a sheet.`,
    );
  });
});
