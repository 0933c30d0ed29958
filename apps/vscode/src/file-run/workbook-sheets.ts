// The sheets of an Excel workbook, in tab order, so that "Enrich File..." can ask which one to read
// before the mapping. Read from the workbook's own list (xl/workbook.xml inside the zip, a few
// hundred bytes) without loading the workbook, which may hold a million rows, and without exceljs,
// which only the bulk engine depends on.
//
// exceljs's streaming reader finds the list only after walking the whole zip (copying every sheet
// to a temp file), so for a question asked before the run this reads the one small part itself.
// Anything it cannot read (not a zip, a zip64, a damaged part) gives no sheets: the user is then not
// asked, and the engine reads the first sheet or says what is wrong with the file.
import { type FileHandle, open } from 'node:fs/promises';
import { inflateRawSync } from 'node:zlib';

export interface SheetInfo {
  readonly name: string;
  /** Hidden in Excel (state "hidden" or "veryHidden"): still a sheet the engine can read. */
  readonly hidden: boolean;
}

const WORKBOOK_PART = 'xl/workbook.xml';
/** The list of sheets is small; a part bigger than this is not one to read here. */
const MAX_PART_BYTES = 8 * 1024 * 1024;

export async function workbookSheets(path: string): Promise<SheetInfo[]> {
  let file: FileHandle | undefined;
  try {
    file = await open(path, 'r');
    const xml = await readZipEntry(file, WORKBOOK_PART);
    return xml === undefined ? [] : sheetsOf(xml.toString('utf8'));
  } catch {
    return [];
  } finally {
    await file?.close();
  }
}

/** The sheets the workbook part lists, in its order (the tabs' order). */
export function sheetsOf(xml: string): SheetInfo[] {
  const list = /<(?:[\w.-]+:)?sheets\b[^>]*>([\s\S]*?)<\/(?:[\w.-]+:)?sheets>/.exec(xml)?.[1] ?? '';
  const sheets: SheetInfo[] = [];
  for (const element of list.matchAll(/<(?:[\w.-]+:)?sheet\b([^>]*)>/g)) {
    const attributes = element[1] ?? '';
    const name = attribute(attributes, 'name');
    if (name === undefined) continue;
    const state = attribute(attributes, 'state');
    sheets.push({ name: unescapeXml(name), hidden: state === 'hidden' || state === 'veryHidden' });
  }
  return sheets;
}

function attribute(attributes: string, name: string): string | undefined {
  const found = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attributes);
  return found ? (found[1] ?? found[2]) : undefined;
}

function unescapeXml(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return text.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (whole, entity: string) => {
    if (entity.startsWith('#')) {
      const code =
        entity[1] === 'x' || entity[1] === 'X'
          ? Number.parseInt(entity.slice(2), 16)
          : Number(entity.slice(1));
      return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return named[entity.toLowerCase()] ?? whole;
  });
}

/** One entry of a zip file, found through its central directory; undefined when it is not there. */
async function readZipEntry(file: FileHandle, wanted: string): Promise<Buffer | undefined> {
  const { size } = await file.stat();
  // The end-of-central-directory record: 22 bytes, after which only a comment (up to 64 KiB).
  const tailLength = Math.min(size, 22 + 0xffff);
  const tail = await readAt(file, size - tailLength, tailLength);
  let end = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return undefined;
  const directorySize = tail.readUInt32LE(end + 12);
  const directoryOffset = tail.readUInt32LE(end + 16);
  // 0xffffffff: a zip64, whose real offsets are elsewhere (no sheet list is that far in).
  if (directoryOffset === 0xffffffff || directoryOffset + directorySize > size) return undefined;
  const directory = await readAt(file, directoryOffset, directorySize);
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
    if (compressedSize > MAX_PART_BYTES) return undefined;
    const local = await readAt(file, localOffset, 30);
    if (local.readUInt32LE(0) !== 0x04034b50) return undefined;
    const dataOffset = localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    const data = await readAt(file, dataOffset, compressedSize);
    if (method === 0) return data;
    if (method === 8) return inflateRawSync(data, { maxOutputLength: MAX_PART_BYTES });
    return undefined;
  }
  return undefined;
}

async function readAt(file: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length) throw new Error('the file is shorter than its zip directory says');
  return buffer;
}
