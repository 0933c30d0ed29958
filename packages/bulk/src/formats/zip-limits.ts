// How big a workbook's parts may unpack, checked from the zip's central directory before anything
// is unpacked or sent, so that a zip bomb (a small file whose parts unpack to gigabytes: a 410 KB
// workbook holding one 400 MB shared string took 3 GB of memory) is refused with a message instead
// of exhausting the memory or the disk mid-run. Why each number is what it is: the README's "Limits
// on a workbook". A zip may lie in its directory; exceljs-reading.ts bounds what is actually
// inflated by what the directory says (see inflationLimits).
import { BulkError } from '../run/bulk-error.js';
import type { ZipEntry } from './zip-file.js';

const MiB = 1024 * 1024;

/**
 * A sheet's XML is streamed (through a temp file), never held whole: a million rows of 12 columns,
 * as Excel writes them, unpack to about 470 MB. This is four times that (a million rows of about
 * 50 columns).
 */
const MAX_SHEET_BYTES = 2048 * MiB;

/**
 * Every other part (the shared strings above all, and the styles) is held whole in memory by
 * exceljs. The shared strings of a million rows with three columns of distinct text (names,
 * emails, addresses) unpack to about 60 MB; this is four times that.
 */
const MAX_PART_BYTES = 256 * MiB;

/**
 * The largest ratio of unpacked to packed size of a part over RATIO_FLOOR_BYTES. The XML of real
 * workbooks packs 6:1 to 14:1 (a sheet of contacts 6:1, a formula filled down a million rows or a
 * million rows of empty formatted cells 14:1, their shared strings 7:1 to 10:1), and XML that
 * repeats itself a lot can reach 100:1; deflate cannot pack tighter than about 1,030:1, which is
 * what a bomb of one repeated character reaches.
 */
const MAX_RATIO = 250;

/** Parts smaller than this unpack to too little to harm, whatever their ratio (styles can repeat a lot). */
const RATIO_FLOOR_BYTES = 8 * MiB;

/** All the parts together: exceljs copies every sheet, not only the one read, to a temp file. */
const MAX_TOTAL_BYTES = 4096 * MiB;

/** Whether a part is a worksheet's XML, the one kind of part that is streamed. */
function isSheet(name: string): boolean {
  return /^xl\/worksheets\/[^/]+\.xml$/i.test(name);
}

/** The most a part may unpack to, by its kind. */
function limitOf(name: string): number {
  return isSheet(name) ? MAX_SHEET_BYTES : MAX_PART_BYTES;
}

/**
 * Refuses (a BulkError naming the part and the limit) a workbook whose directory gives a part
 * over its limit, a part that unpacks too many times its packed size, parts over the total, or the
 * same part twice (which one would be read is then up to the reader).
 */
export function checkZipLimits(path: string, entries: readonly ZipEntry[]): void {
  const refuse = (why: string) =>
    new BulkError(
      `${path} is refused: ${why}. Such a file is a zip bomb or damaged, not a workbook an office tool saved. Nothing was sent.`,
    );
  const seen = new Set<string>();
  let total = 0;
  for (const entry of entries) {
    if (seen.has(entry.name)) throw refuse(`its zip names the part ${entry.name} twice`);
    seen.add(entry.name);
    const limit = limitOf(entry.name);
    if (entry.size > limit) {
      const kind = isSheet(entry.name) ? 'a sheet' : 'a part other than a sheet';
      throw refuse(
        `its part ${entry.name} unpacks to ${mb(entry.size)}, over the limit of ${mb(limit)} for ${kind}`,
      );
    }
    if (entry.size > RATIO_FLOOR_BYTES && entry.size > MAX_RATIO * entry.compressedSize) {
      const ratio = Math.round(entry.size / Math.max(1, entry.compressedSize));
      throw refuse(
        `its part ${entry.name} unpacks to ${ratio.toLocaleString('en-US')} times its packed size (${mb(entry.size)} from ${mb(entry.compressedSize)}), over the limit of ${MAX_RATIO}:1 for a part over ${mb(RATIO_FLOOR_BYTES)}`,
      );
    }
    total += entry.size;
    if (total > MAX_TOTAL_BYTES) {
      throw refuse(`its parts unpack to more than ${mb(MAX_TOTAL_BYTES)} together, the limit for a workbook`);
    }
  }
}

/**
 * What each part may actually inflate to while exceljs reads it: what the directory says (checked
 * above), since a zip's local headers may say otherwise, or give no size at all until after the
 * data. A part that the directory does not list may not inflate at all.
 */
export function inflationLimits(entries: readonly ZipEntry[]): ReadonlyMap<string, number> {
  return new Map(entries.map((entry) => [entry.name, entry.size]));
}

/** The BulkError for a part that inflates past what its directory says (or is not in it). */
export function inflatedTooFar(path: string, part: string, limit: number | undefined): BulkError {
  const said =
    limit === undefined
      ? 'that its zip directory does not list'
      : `that unpacks to more than the ${mb(limit)} its zip directory gives`;
  return new BulkError(
    `${path} is refused: it holds a part (${part}) ${said}. Such a file is a zip bomb or damaged, not a workbook an office tool saved. Nothing was sent.`,
  );
}

function mb(bytes: number): string {
  if (bytes >= 100 * MiB || bytes % MiB === 0)
    return `${Math.round(bytes / MiB).toLocaleString('en-US')} MiB`;
  if (bytes >= MiB) return `${(bytes / MiB).toFixed(1)} MiB`;
  return `${Math.max(1, Math.round(bytes / 1024)).toLocaleString('en-US')} KiB`;
}
