// Workbooks written zip part by zip part, for the tests of what a workbook may unpack to: a zip bomb
// (a workbook of a few hundred KB whose shared strings unpack to hundreds of MB), built streaming
// so that the test never holds what the bomb unpacks to, and a zip whose directory lies about it.
// (Also used by the CLI's xlsx-cli.test.ts, which runs the real command on one.)

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { crc32, createDeflateRaw } from 'node:zlib';

/** A part of the zip: its name and its text, in pieces (a generator: never all of it at once). */
export interface ZipPart {
  readonly name: string;
  readonly text: () => Iterable<string | Buffer>;
}

/** A part deflated: its packed bytes (small, for a bomb) and what the directory says of it. */
interface Packed {
  readonly name: Buffer;
  readonly data: Buffer;
  readonly crc: number;
  readonly size: number;
}

async function pack(part: ZipPart): Promise<Packed> {
  const deflater = createDeflateRaw({ level: 9 });
  const chunks: Buffer[] = [];
  deflater.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = once(deflater, 'end');
  let crc = 0;
  let size = 0;
  for (const piece of part.text()) {
    const bytes = typeof piece === 'string' ? Buffer.from(piece) : piece;
    crc = crc32(bytes, crc);
    size += bytes.length;
    if (!deflater.write(bytes)) await once(deflater, 'drain');
  }
  deflater.end();
  await ended;
  return { name: Buffer.from(part.name), data: Buffer.concat(chunks), crc, size };
}

/**
 * Writes the parts as a zip at `path`. `says(name, size)` is the unpacked size the central
 * directory gives for a part (its true size unless a test makes it lie).
 */
export async function writeZip(
  path: string,
  parts: readonly ZipPart[],
  says: (name: string, size: number) => number = (_name, size) => size,
): Promise<void> {
  const file = createWriteStream(path);
  const directory: Buffer[] = [];
  let offset = 0;
  const put = async (bytes: Buffer) => {
    offset += bytes.length;
    if (!file.write(bytes)) await once(file, 'drain');
  };
  for (const part of parts) {
    const packed = await pack(part);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8); // deflated
    local.writeUInt32LE(packed.crc, 14);
    local.writeUInt32LE(packed.data.length, 18);
    local.writeUInt32LE(packed.size, 22);
    local.writeUInt16LE(packed.name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(packed.crc, 16);
    central.writeUInt32LE(packed.data.length, 20);
    central.writeUInt32LE(says(part.name, packed.size), 24);
    central.writeUInt16LE(packed.name.length, 28);
    central.writeUInt32LE(offset, 42);
    directory.push(central, packed.name);
    await put(Buffer.concat([local, packed.name, packed.data]));
  }
  const list = Buffer.concat(directory);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(parts.length, 8);
  end.writeUInt16LE(parts.length, 10);
  end.writeUInt32LE(list.length, 12);
  end.writeUInt32LE(offset, 16);
  await put(Buffer.concat([list, end]));
  file.end();
  await once(file, 'finish');
}

const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PKG_REL = 'http://schemas.openxmlformats.org/package/2006/relationships';

/**
 * The parts of a workbook of one sheet "Leads": a header (Name, Phone) and one row whose name is
 * shared string 0, `sharedString` (pieces of text), and whose phone is `phone`.
 */
export function workbookParts(phone: string, sharedString: () => Iterable<string | Buffer>): ZipPart[] {
  const text = (xml: string) => () => [xml];
  return [
    {
      name: '[Content_Types].xml',
      text: text(
        '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>',
      ),
    },
    {
      name: '_rels/.rels',
      text: text(
        `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      ),
    },
    {
      name: 'xl/workbook.xml',
      text: text(
        `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="${MAIN}" xmlns:r="${REL}"><sheets><sheet name="Leads" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      text: text(
        `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="${PKG_REL}"><Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      ),
    },
    {
      name: 'xl/worksheets/sheet1.xml',
      text: text(
        `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="${MAIN}"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>Name</t></is></c><c r="B1" t="inlineStr"><is><t>Phone</t></is></c></row><row r="2"><c r="A2" t="s"><v>0</v></c><c r="B2" t="inlineStr"><is><t>${phone}</t></is></c></row></sheetData></worksheet>`,
      ),
    },
    {
      name: 'xl/sharedStrings.xml',
      text: () => [
        `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="${MAIN}" count="1" uniqueCount="1"><si><t>`,
        ...sharedString(),
        '</t></si></sst>',
      ],
    },
  ];
}

/** `megabytes` MiB of one repeated letter, a MiB at a time: what packs tightest. */
export function* repeated(megabytes: number): Generator<Buffer> {
  const mib = Buffer.alloc(1024 * 1024, 'A');
  for (let i = 0; i < megabytes; i++) yield mib;
}

/** A workbook whose one shared string is `megabytes` MiB of one letter: a zip bomb. */
export function writeBombWorkbook(path: string, phone: string, megabytes = 400): Promise<void> {
  return writeZip(
    path,
    workbookParts(phone, () => repeated(megabytes)),
  );
}
