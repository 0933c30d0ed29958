// Which files a run may read and which it may replace, decided once for every client that takes a
// file (the CLI, the MCP file tools, VS Code). A run reads and writes regular files only: opening a
// FIFO blocks the whole process until a writer comes (Ctrl-C included), a device or /proc entry
// answers endlessly or not at all, and renaming an output over /dev/null replaces the device node.
// Pipes go through the CLI's `-`. And a run never replaces a file that holds the user's money: an
// answer cache (journal), the spend ledger, a lock, or its own input, even when told to replace
// what is in the way (--force, VS Code's Replace).
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  rmSync,
  type Stats,
  statSync,
} from 'node:fs';
import { basename } from 'node:path';
import { readLedger } from '@enrich/core';
import { parseLine } from '../store/journal-file.js';
import { BulkError } from './bulk-error.js';
import { distinctFiles } from './same-file.js';

/** What a path that is not a regular file is, in words; undefined for a regular file. */
export function nodeKind(stat: Stats): string | undefined {
  if (stat.isFile()) return undefined;
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/**
 * The size of an input that a run may read: a regular file (links followed). Anything else is
 * refused, without opening it, naming what it is.
 */
export function checkInputFile(path: string): number {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (error) {
    throw new BulkError(`Cannot read ${path}: ${(error as Error).message}`);
  }
  const kind = nodeKind(stat);
  if (kind !== undefined) {
    throw new BulkError(
      `${path} is ${kind}, not a file; a file run reads a regular file. Nothing was sent.${kind === 'a directory' ? '' : ' To read from a pipe, give - as the input (the enrich command).'}`,
    );
  }
  return stat.size;
}

/**
 * Removes a file of ours that may not be there, or whose folder is not one (a cache folder made a
 * file): for hints (a remembered pace, a run's file) that must never fail a run.
 */
export function removeQuietly(path: string): void {
  try {
    rmSync(path, { force: true });
  } catch {
    // Nothing was written there to remove.
  }
}

/**
 * Opens a file for reading without ever blocking: O_NONBLOCK makes a FIFO that appeared since it
 * was checked open at once, and the descriptor is refused unless it is a regular file.
 */
export function openRegularFile(path: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  const kind = nodeKind(fstatSync(fd));
  if (kind !== undefined) {
    closeSync(fd);
    throw new BulkError(`${path} is ${kind}, not a file. Nothing was sent.`);
  }
  return fd;
}

/** The files a run must keep apart: each a different file, and none replaced by the output. */
export interface RunFiles {
  readonly inPath?: string;
  readonly outPath: string;
  readonly cachePath: string;
  /** The spend ledger (ENRICH_LEDGER or the data folder's). */
  readonly ledgerPath?: string;
}

/**
 * Refuses, before anything is sent, an output path that must never be replaced, even when the user
 * asked to replace what is in the way: a directory, FIFO, socket or device; a lock; the input, the
 * answer cache or the spend ledger (as real paths); any other answer cache or ledger, known by its
 * first line. Also refuses two of the run's files that are one.
 */
export function checkRunFiles(files: RunFiles): void {
  const named: [string, string][] = [];
  if (files.inPath !== undefined) named.push(['the input', files.inPath]);
  named.push(['the output', files.outPath], ['the answer cache', files.cachePath]);
  if (files.ledgerPath !== undefined) named.push(['the spend ledger', files.ledgerPath]);
  distinctFiles(named);
  const protectedAs = outputProtection(files.outPath);
  if (protectedAs !== undefined) {
    throw new BulkError(
      `${files.outPath} is ${protectedAs}; a run never replaces it. Nothing was sent. Name another file for the output.`,
    );
  }
}

/** Why an output path may never be replaced, or undefined when it may be (or does not exist). */
function outputProtection(outPath: string): string | undefined {
  if (/\.lock$/i.test(basename(outPath))) return 'a lock file';
  let stat: Stats;
  try {
    // lstat: a link is replaced by the rename, not followed; but a link to a device is as bad.
    stat = lstatSync(outPath).isSymbolicLink() ? statSync(outPath) : lstatSync(outPath);
  } catch {
    return undefined; // nothing there yet
  }
  const kind = nodeKind(stat);
  if (kind !== undefined) return kind;
  // A line torn by a crash may come first: any whole line of the start decides.
  const lines = startLines(outPath);
  if (lines.some((line) => parseLine(line))) return 'an answer cache (its lines are paid answers)';
  if (readLedger(lines.join('\n')).entries.length > 0) return 'a spend ledger';
  return undefined;
}

/** The whole lines of the first 64 KB of a regular file; none when it cannot be read. */
function startLines(path: string): string[] {
  let fd: number;
  try {
    fd = openRegularFile(path);
  } catch {
    return [];
  }
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    const lines = buffer.subarray(0, read).toString('utf8').split('\n');
    if (read === buffer.length) lines.pop(); // cut at 64 KB: the last line is partial
    return lines.filter((line) => line.trim() !== '');
  } catch {
    return [];
  } finally {
    closeSync(fd);
  }
}
