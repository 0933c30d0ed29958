// The sheets of an Excel workbook, in tab order, so that "Enrich File..." can ask which one to read
// before the mapping. Read from the workbook's own list (xl/workbook.xml inside the zip, a few
// hundred bytes, found by the engine's zip reader) without loading the workbook, which may hold a
// million rows, and without exceljs.
//
// exceljs's streaming reader finds the list only after walking the whole zip (copying every sheet
// to a temp file), so for a question asked before the run this reads the one small part itself.
// Anything it cannot read (not a zip, a zip64, a damaged part) gives no sheets: the user is then not
// asked, and the engine reads the first sheet or says what is wrong with the file.
import { type FileHandle, open } from 'node:fs/promises';
import { readZipEntry } from '@enrich/bulk';

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
    const xml = await readZipEntry(file, WORKBOOK_PART, MAX_PART_BYTES);
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
