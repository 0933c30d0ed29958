// Whether a workbook holds macros is said by its main part's content type in [Content_Types].xml,
// and Excel opens a file only when that agrees with its extension: a workbook with macros named
// .xlsx (or one without named .xlsm) is refused as "not valid". An output copied from its input
// (xlsx-rewrite.ts) takes the content type its own extension needs:
//
// - an .xlsm input to an .xlsm output (the default output name keeps the extension), or an .xlsx
//   to an .xlsx: nothing changes, macros included;
// - an .xlsx input to an .xlsm output: the main part is declared macro-enabled (it has no macros);
// - an .xlsm input to an .xlsx output: the main part is declared without macros, and the macros
//   (the VBA project, its signature, and the workbook's relationship to them) are left out, which
//   the README states: an .xlsx cannot hold them.
import { extname } from 'node:path';
import type { ZipEntry } from './zip-file.js';

const MAIN = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml';
const MACRO_MAIN = 'application/vnd.ms-excel.sheet.macroEnabled.main+xml';
/** The VBA project and its signatures (vbaProjectSignature, ...Agile, ...V3). */
const VBA = /^application\/vnd\.ms-office\.vbaProject(Signature\w*)?$/;

const CONTENT_TYPES = '[Content_Types].xml';
const WORKBOOK_RELS = 'xl/_rels/workbook.xml.rels';

/** What an output leaves out of its input's parts, and the parts it writes with other text. */
export interface PartChanges {
  readonly leftOut: ReadonlySet<string>;
  readonly changed: ReadonlyMap<string, string>;
}

const NONE: PartChanges = { leftOut: new Set(), changed: new Map() };

/**
 * The changes an output named `outName` needs, from its input's parts; `text(name)` reads one
 * (small) part. None when the extension is neither .xlsx nor .xlsm, or the workbook is of another
 * kind (a template).
 */
export async function changesFor(
  outName: string,
  entries: readonly ZipEntry[],
  text: (name: string) => Promise<string>,
): Promise<PartChanges> {
  const ext = extname(outName).toLowerCase();
  if ((ext !== '.xlsx' && ext !== '.xlsm') || !entries.some((e) => e.name === CONTENT_TYPES)) return NONE;
  const types = await text(CONTENT_TYPES);
  const macros = types.includes(`"${MACRO_MAIN}"`);
  if (!macros && !types.includes(`"${MAIN}"`)) return NONE;
  if ((ext === '.xlsm') === macros) return NONE;
  if (!macros)
    return { leftOut: new Set(), changed: new Map([[CONTENT_TYPES, retyped(types, MAIN, MACRO_MAIN)]]) };

  // Macros to leave out: the parts of a VBA content type, named one by one or by their extension.
  const overrides = elements(types, 'Override');
  const defaults = elements(types, 'Default');
  const vbaExtensions = defaults
    .filter((d) => VBA.test(attribute(d, 'ContentType') ?? ''))
    .map((d) => `.${(attribute(d, 'Extension') ?? '').toLowerCase()}`);
  const vbaParts = new Set(
    overrides
      .filter((o) => VBA.test(attribute(o, 'ContentType') ?? ''))
      .map((o) => (attribute(o, 'PartName') ?? '').replace(/^\//, '')),
  );
  for (const entry of entries) {
    const overridden = overrides.some((o) => attribute(o, 'PartName')?.replace(/^\//, '') === entry.name);
    if (!overridden && vbaExtensions.includes(extname(entry.name).toLowerCase())) vbaParts.add(entry.name);
  }
  const leftOut = new Set(vbaParts);
  // A VBA part's own relationships (to its signature) go with it.
  for (const part of vbaParts) {
    const slash = part.lastIndexOf('/');
    leftOut.add(`${part.slice(0, slash + 1)}_rels/${part.slice(slash + 1)}.rels`);
  }
  let withoutVba = retyped(types, MACRO_MAIN, MAIN);
  for (const o of overrides)
    if (VBA.test(attribute(o, 'ContentType') ?? '')) withoutVba = withoutVba.replace(o, '');
  const changed = new Map([[CONTENT_TYPES, withoutVba]]);
  if (entries.some((e) => e.name === WORKBOOK_RELS)) {
    let rels = await text(WORKBOOK_RELS);
    for (const r of elements(rels, 'Relationship')) {
      if (/\/vbaProject$/.test(attribute(r, 'Type') ?? '')) rels = rels.replace(r, '');
    }
    changed.set(WORKBOOK_RELS, rels);
  }
  return { leftOut, changed };
}

function retyped(types: string, from: string, to: string): string {
  return types.replace(`"${from}"`, `"${to}"`);
}

/** The empty elements <name .../> of a small XML part, as their text. */
function elements(xml: string, name: string): string[] {
  return xml.match(new RegExp(`<${name}\\b[^>]*/>`, 'g')) ?? [];
}

function attribute(element: string, name: string): string | undefined {
  return new RegExp(`\\s${name}\\s*=\\s*"([^"]*)"`).exec(element)?.[1];
}
