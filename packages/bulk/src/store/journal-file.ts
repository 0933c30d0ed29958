// The journal's lines on disk: their format, reading one back, and the helpers of the answer store.
// One JSON object per line: {"v":1,"ns":"...","key":"...","at":<ms>,"outcome":{...}}.
import { createHash } from 'node:crypto';
import { fdatasync, fstatSync, readSync, realpathSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isStoredOutcome, type Outcome } from '@enrich/core';

export const FORMAT_VERSION = 1;

export interface Line {
  readonly v: number;
  readonly ns: string;
  readonly key: string;
  readonly at: number;
  readonly outcome: Outcome;
}

/** A journal line, or undefined for anything else (null, another shape, torn, garbage). */
export function parseLine(text: string): Line | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value)) return undefined;
  const { v, ns, key, at, outcome } = value;
  if (v !== FORMAT_VERSION || typeof ns !== 'string' || typeof key !== 'string') return undefined;
  if (typeof at !== 'number' || !Number.isFinite(at) || !isStoredOutcome(outcome)) return undefined;
  return value as unknown as Line;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function writeAll(fd: number, buffer: Buffer): void {
  let done = 0;
  while (done < buffer.length) done += writeSync(fd, buffer, done, buffer.length - done);
}

/** The rescue file of a cache: in the temp directory (likely another disk), named for the cache. */
export function rescuePathFor(cachePath: string, dir: string): string {
  let real = cachePath;
  try {
    real = join(realpathSync(dirname(cachePath)), basename(cachePath));
  } catch {
    // The directory does not exist yet: the path as given names it.
  }
  const id = createHash('sha256').update(real).digest('hex').slice(0, 16);
  return join(dir, `enrich-unsaved-${id}.jsonl`);
}

export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

export function describeFailure(error: Error | undefined): string {
  if (!error) return 'unknown';
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOSPC') return 'the disk is full (ENOSPC)';
  if (code === 'EDQUOT') return 'the disk quota is used up (EDQUOT)';
  return code ? `${code}: ${error.message}` : error.message;
}

/** The line that starts at `offset` (without its newline). */
export function readLineAt(fd: number, offset: number): string {
  const parts: Buffer[] = [];
  let position = offset;
  for (;;) {
    const buffer = Buffer.alloc(4096);
    const read = readSync(fd, buffer, 0, buffer.length, position);
    const nl = buffer.subarray(0, read).indexOf(10);
    if (nl >= 0 || read === 0) {
      parts.push(buffer.subarray(0, nl >= 0 ? nl : read));
      return Buffer.concat(parts).toString('utf8');
    }
    parts.push(buffer.subarray(0, read));
    position += read;
  }
}

const READ_CHUNK = 1 << 20;

/**
 * Calls `onLine` with each complete line of the file and its byte offset, reading 1 MB at a time;
 * says the file's size and whether it ends in a torn line (no newline).
 */
export function scanLines(
  fd: number,
  onLine: (text: string, offset: number) => void,
): { size: number; torn: boolean } {
  const { size } = fstatSync(fd);
  const buffer = Buffer.alloc(READ_CHUNK);
  let carry = Buffer.alloc(0);
  let carryStart = 0;
  let position = 0;
  while (position < size) {
    const read = readSync(fd, buffer, 0, Math.min(READ_CHUNK, size - position), position);
    if (read === 0) break;
    const chunk =
      carry.length > 0 ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer.subarray(0, read);
    const chunkStart = carry.length > 0 ? carryStart : position;
    position += read;
    let lineStart = 0;
    for (let nl = chunk.indexOf(10); nl >= 0; nl = chunk.indexOf(10, lineStart)) {
      onLine(chunk.toString('utf8', lineStart, nl), chunkStart + lineStart);
      lineStart = nl + 1;
    }
    carry = Buffer.from(chunk.subarray(lineStart));
    carryStart = chunkStart + lineStart;
  }
  return { size, torn: carry.length > 0 };
}

/** Where the answers that could not be journaled ended up. */
export interface SaveReport {
  /** Answers that arrived but could not be journaled during the run. */
  readonly count: number;
  /** 'journal' (written after all), 'rescue' (in rescuePath), or 'nowhere' (lost: a rerun buys them). */
  readonly where: 'journal' | 'rescue' | 'nowhere';
  readonly rescuePath?: string;
  /** Why the journal could not be written. */
  readonly reason: string;
}

export const fdatasyncAsync = (fd: number) =>
  new Promise<void>((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
