// What a whole file holds as UTF-8, read once in chunks before anything is sent: whether it has a
// valid multi-byte character (a sign that it is UTF-8: Windows-1252 text almost never spells one),
// and where its bytes are not UTF-8. csv-layout.ts decides the encoding from both: a file with bad
// bytes and no UTF-8 character is Windows-1252; a file with both is neither, and is refused. The
// decision needs the whole file (the first UTF-8 character, or the one bad byte, may be at row
// 89,999), so no sample of its start would do.
//
// Most chunks of most files are valid UTF-8: Node's isUtf8 checks each at native speed and decodes
// nothing (a decoder would make a string of each megabyte). Only a chunk that fails it is walked
// byte by byte, to count its bad places and find its characters. Counting lines costs a pass of
// its own, so it is done only once a file is refused, for the places its message names.
import { isAscii, isUtf8 } from 'node:buffer';
import { closeSync, openSync, readSync } from 'node:fs';

export interface Utf8Scan {
  /** The offset of the file's first valid multi-byte character; undefined when it has none. */
  readonly firstCharacter: number | undefined;
  /**
   * Places that are not UTF-8, counted as a decoder counts the U+FFFD it would put in: a byte that
   * cannot start a character, or a character cut short, is one place.
   */
  readonly badPlaces: number;
  /** The first of them: its offset and its first byte. */
  readonly firstBad: { readonly offset: number; readonly byte: number } | undefined;
}

const CHUNK_BYTES = 1024 * 1024;

/** Reads the whole file from `from` (past a BOM) and says what it holds as UTF-8. */
export function scanUtf8(path: string, from = 0): Utf8Scan {
  const scan: MutableScan = { firstCharacter: undefined, badPlaces: 0, firstBad: undefined };
  const chunk = Buffer.alloc(CHUNK_BYTES);
  const fd = openSync(path, 'r');
  try {
    let carried = 0;
    let position = from; // the file offset of chunk[0]
    for (;;) {
      const read = readSync(fd, chunk, carried, chunk.length - carried, position + carried);
      const total = carried + read;
      // At the end, a character cut short is a bad place; before it, one cut by the chunk's end is
      // carried to the next chunk, where it is whole.
      const end = read === 0 ? total : total - cutCharacter(chunk, total);
      scanPart(chunk.subarray(0, end), position, scan);
      if (read === 0) return scan;
      chunk.copy(chunk, 0, end, total);
      carried = total - end;
      position += end;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The 1-based line of the file that holds each offset (LF, CRLF or a lone CR ends a line), in one
 * read up to the last of them.
 */
export function linesAt(path: string, offsets: readonly number[]): number[] {
  const last = Math.max(0, ...offsets);
  const lines = offsets.map(() => 1);
  const chunk = Buffer.alloc(CHUNK_BYTES);
  const fd = openSync(path, 'r');
  try {
    let position = 0;
    let previous = 0;
    while (position < last) {
      const read = readSync(fd, chunk, 0, Math.min(chunk.length, last - position), position);
      if (read === 0) break;
      for (let i = 0; i < read; i++) {
        const byte = chunk[i] as number;
        if (byte === 0x0d || (byte === 0x0a && previous !== 0x0d)) {
          for (let k = 0; k < offsets.length; k++)
            if (position + i < (offsets[k] as number)) lines[k] = (lines[k] as number) + 1;
        }
        previous = byte;
      }
      position += read;
    }
  } finally {
    closeSync(fd);
  }
  return lines;
}

type MutableScan = { -readonly [K in keyof Utf8Scan]: Utf8Scan[K] };

/** Adds what `part` (whole characters, at file offset `base`) holds to `scan`. */
function scanPart(part: Buffer, base: number, scan: MutableScan): void {
  if (isUtf8(part)) {
    // Valid and not ASCII: it holds a multi-byte character. Only the first one's place is wanted.
    if (scan.firstCharacter === undefined && !isAscii(part)) {
      scan.firstCharacter = base + part.findIndex((byte) => byte >= 0x80);
    }
    return;
  }
  walk(part, base, scan);
}

/**
 * The part byte by byte, as the WHATWG UTF-8 decoder reads it: each lead byte with the continuation
 * bytes its character needs (with the narrower second byte after E0, ED, F0 and F4 that rules out
 * overlong forms, surrogates and code points past U+10FFFF); anything else is a bad place, and the
 * byte that broke a character off is read again as the start of the next.
 */
function walk(part: Buffer, base: number, scan: MutableScan): void {
  const end = part.length;
  // ASCII is skipped four bytes at a time, as aligned words with no high bit: a Latin-1 file is
  // walked whole, and most of its bytes are ASCII between its accents (three times faster).
  const aligned = (4 - (part.byteOffset % 4)) % 4;
  const words = new Uint32Array(part.buffer, part.byteOffset + aligned, Math.max(0, (end - aligned) >> 2));
  let i = 0;
  while (i < end) {
    const lead = part[i] as number;
    if (lead < 0x80) {
      i++;
      if (i >= aligned && (i - aligned) % 4 === 0) {
        let word = (i - aligned) >> 2;
        while (word < words.length && ((words[word] as number) & 0x80808080) === 0) word++;
        i = aligned + word * 4;
      }
      continue;
    }
    let needed = 0;
    let lower = 0x80;
    let upper = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) needed = 1;
    else if (lead >= 0xe0 && lead <= 0xef) {
      needed = 2;
      if (lead === 0xe0) lower = 0xa0;
      if (lead === 0xed) upper = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      needed = 3;
      if (lead === 0xf0) lower = 0x90;
      if (lead === 0xf4) upper = 0x8f;
    }
    let next = i + 1;
    let found = 0;
    while (found < needed && next < end) {
      const byte = part[next] as number;
      if (byte < lower || byte > upper) break;
      lower = 0x80;
      upper = 0xbf;
      next++;
      found++;
    }
    if (needed > 0 && found === needed) {
      scan.firstCharacter ??= base + i;
    } else {
      scan.badPlaces++;
      scan.firstBad ??= { offset: base + i, byte: lead };
    }
    i = needed === 0 ? i + 1 : next;
  }
}

/** How many bytes at the end of bytes[0, total) start a character that continues past it. */
function cutCharacter(bytes: Buffer, total: number): number {
  for (let back = 1; back <= 3 && back <= total; back++) {
    const byte = bytes[total - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}
