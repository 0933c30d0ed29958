// exceljs 4.4.0's streaming reader, made safe for a run: waits that end when the file is damaged,
// no part inflated past the size its zip directory gives, every sheet read after the whole zip,
// each part decoded as one UTF-8 text, temp files removed.
// These reach into private members of that (pinned) version: a version bump must re-check them
// (xlsx.test.ts covers each).
import { type ReadStream, statSync } from 'node:fs';
import { Transform, type Writable } from 'node:stream';
import type { stream } from 'exceljs';

type WorkbookReader = stream.xlsx.WorkbookReader;

// A sheet's XML is handed to exceljs in pieces of this many characters, not the temp file's 64 KB
// chunks: exceljs turns a piece into all its rows at once, and the rows of a 64 KB piece lived long
// enough to be promoted to the old generation by the CLI's small young generation, which made
// reading much slower (the CLI's bench/README.md has the figures).
const PIECE_CHARS = 16 * 1024;

/** What each part of the zip may inflate to, and the error for one that goes past it. */
export interface InflationBound {
  readonly limits: ReadonlyMap<string, number>;
  refuse(part: string, limit: number | undefined): Error;
}

/**
 * Waits on exceljs that fail when the file cannot be read or its zip cannot be unpacked (cut
 * short, damaged), or when a part inflates past `bound` (a zip that lies in its directory, which
 * zip-limits.ts checked). exceljs does not pass those errors on while it copies a sheet to a temp
 * file (it waits for the copy to finish, which never comes): without this a damaged workbook would
 * leave the run waiting for ever. (Not Promise.race against one promise that fails: each race
 * leaves a callback on it that holds what the race returned, every row of the sheet.)
 */
export function whenBroken(file: ReadStream, bound: InflationBound): <T>(waited: Promise<T>) => Promise<T> {
  let broken: { error: unknown } | undefined;
  let failWaiting: ((error: unknown) => void) | undefined;
  const fail = (error: unknown) => {
    broken ??= { error };
    failWaiting?.(error);
  };
  file.on('error', fail);
  // The unzipping stream is the one the file is piped into (exceljs makes it).
  const pipe = file.pipe.bind(file);
  file.pipe = (<T extends NodeJS.WritableStream>(destination: T, options?: { end?: boolean }) => {
    (destination as unknown as Writable).on('error', fail);
    boundEntries(destination as unknown as Unzip, bound, (error) => {
      fail(error);
      // Nothing more is read: the rest of the file is not unpacked.
      file.destroy();
    });
    return pipe(destination, options);
  }) as typeof file.pipe;
  return <T>(waited: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      if (broken) return reject(broken.error);
      failWaiting = reject;
      waited.then(resolve, reject).finally(() => {
        failWaiting = undefined;
      });
    });
}

/**
 * unzipper 0.10's Parse stream (exceljs's unzipper), which pushes each part as a stream the
 * inflater writes into; the part's name is its `path`.
 */
interface Unzip {
  push(chunk: unknown): boolean;
}

interface UnzippedPart extends Transform {
  readonly path: string;
}

/**
 * Each part the unzipping stream hands out counts what is inflated into it; past its limit the
 * data is dropped (not passed on, so nothing holds it) and `over` is told. The part's stream is
 * not made to fail: exceljs listens for no error on a part it copies to a temp file, and an error
 * nobody listens for ends the process.
 */
function boundEntries(unzip: Unzip, bound: InflationBound, over: (error: Error) => void): void {
  const push = unzip.push.bind(unzip);
  unzip.push = (chunk: unknown) => {
    if (chunk instanceof Transform && typeof (chunk as UnzippedPart).path === 'string') {
      const part = chunk as UnzippedPart;
      const limit = bound.limits.get(part.path);
      const transform = part._transform;
      let inflated = 0;
      let stopped = false;
      part._transform = function (this: Transform, data: Buffer, encoding, callback) {
        if (stopped) return callback();
        inflated += data.length;
        if (inflated > (limit ?? 0)) {
          stopped = true;
          over(bound.refuse(part.path, limit));
          return callback();
        }
        transform.call(this, data, encoding, callback);
      };
    }
    return push(chunk);
  };
}

/**
 * Lets exceljs go through the sheets left, each closed unread. It deletes a sheet's temp file (and
 * closes the descriptor the tmp package keeps open on it) only when it moves on to the next sheet,
 * and the sheets after the one read are still to come: stopping at the one read, as a run does,
 * left their files in the temp directory until the process exited, a long time in VS Code.
 */
export async function finishWalk(
  sheets: AsyncIterator<unknown>,
  parts: { current: Part | undefined },
): Promise<void> {
  try {
    for (let next = await sheets.next(); !next.done; next = await sheets.next()) parts.current?.destroy();
  } catch {
    // A damaged workbook, which was reported when it was read.
  }
}

/**
 * The sheet being read: its part in the zip, its temp file's bytes read so far, its size, and a way
 * to stop reading it.
 */
export interface Part {
  readonly name: string;
  read: number;
  total: number;
  destroy(): void;
}

/**
 * Two changes to how exceljs 4.4.0 reads, through private members of that (pinned) version; the
 * tests cover both.
 *
 * Every sheet is read after the whole zip has been walked. exceljs reads a sheet straight from the
 * zip when the shared strings and the workbook's relationships came before it, and otherwise copies
 * it to a temp file and reads it at the end; Excel, and exceljs itself, write the shared strings
 * after the sheets, so that is the usual way anyway. Straight from the zip, a sheet met before the
 * workbook's list of sheets failed, and one met before the styles had its dates read as numbers.
 * Walking the whole zip first also finds a damaged or cut zip before anything is sent.
 *
 * Each part is decoded as one UTF-8 text. exceljs decodes each chunk of a part on its own, so a
 * character whose bytes straddle two chunks (an accent, any non-Latin letter) comes out as U+FFFD:
 * a few cells in a sheet of 20,000 accented names (exceljs issues 2063, 2316).
 */
export function prepare(reader: WorkbookReader): { current: Part | undefined } {
  const parts: { current: Part | undefined } = { current: undefined };
  const internals = reader as unknown as {
    workbookRels: unknown;
    _parseWorksheet(iterator: AsyncIterable<unknown>, sheetNo: string): unknown;
    _parseSharedStrings(entry: NodeJS.ReadableStream): unknown;
  };
  // exceljs reads a sheet straight from the zip only once it has these relationships: it is not
  // given them until it starts on the sheets saved aside, after the walk.
  let walked = false;
  let relationships: unknown;
  Object.defineProperty(reader, 'workbookRels', {
    configurable: true,
    get: () => (walked ? relationships : undefined),
    set: (value: unknown) => {
      relationships = value;
    },
  });
  const parseWorksheet = internals._parseWorksheet;
  const parseSharedStrings = internals._parseSharedStrings;
  internals._parseWorksheet = function (this: unknown, iterator, sheetNo) {
    walked = true;
    // The sheet's temp file, as a stream.
    const file = iterator as Partial<ReadStream>;
    const part: Part = {
      // exceljs reads only parts named so (and finds the sheet's name through this path).
      name: `xl/worksheets/sheet${sheetNo}.xml`,
      read: 0,
      total: typeof file.path === 'string' ? sizeOf(file.path) : 0,
      destroy: () => {
        // Closed unread, perhaps before it has opened its file, which exceljs may delete meanwhile.
        file.on?.('error', () => undefined);
        file.destroy?.();
      },
    };
    parts.current = part;
    return parseWorksheet.call(this, decoded(iterator, part), sheetNo);
  };
  internals._parseSharedStrings = function (this: unknown, entry) {
    entry.setEncoding('utf8');
    return parseSharedStrings.call(this, entry);
  };
  return parts;
}

async function* decoded(chunks: AsyncIterable<unknown>, part: Part): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of chunks) {
    const bytes = chunk as Uint8Array;
    part.read += bytes.length;
    const text = decoder.decode(bytes, { stream: true });
    for (let at = 0; at < text.length; at += PIECE_CHARS) yield text.slice(at, at + PIECE_CHARS);
  }
  const rest = decoder.decode();
  if (rest !== '') yield rest;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
