// Answers that could not go into the journal, kept beside it until a writer of that cache takes them
// in. Two kinds of file, both named for the cache (journal-file.ts's rescuePathFor):
// - the rescue file (`enrich-unsaved-<id>.jsonl`), appended by a run that holds the cache's lock
//   and found its disk full;
// - side files (`enrich-unsaved-<id>.<pid>-<random>.jsonl`), written by a process that paid for an
//   answer while another held the lock (an MCP call during a CLI run) or could not open the cache
//   at all. Each is written whole under a temporary name and renamed into place, so a reader sees
//   all of it or nothing, and no lock is needed to write one.
// Every open of the cache reads them (a read-only lookup too); a writer moves its namespace's fresh
// answers into the journal and leaves other namespaces' answers where they were.
import { randomUUID } from 'node:crypto';
import {
  closeSync,
  fdatasyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  unlinkSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { type Line, parseLine, writeAll } from './journal-file.js';

/** The cache's rescue file and side files that exist now. */
export function rescueFiles(rescuePath: string): string[] {
  const dir = dirname(rescuePath);
  const stem = basename(rescuePath, '.jsonl');
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name === `${stem}.jsonl` || (name.startsWith(`${stem}.`) && name.endsWith('.jsonl')))
    .map((name) => join(dir, name));
}

/** Writes `lines` (journal lines) as a new side file, durably and whole; returns its path. */
export function writeSideFile(rescuePath: string, lines: readonly string[]): string {
  const path = rescuePath.replace(/\.jsonl$/, `.${process.pid}-${randomUUID().slice(0, 8)}.jsonl`);
  mkdirSync(dirname(path), { recursive: true });
  writeWhole(path, lines);
  return path;
}

/** Writes `lines` to `path` durably under a private name, then renames it into place: all or nothing. */
function writeWhole(path: string, lines: readonly string[]): void {
  const temp = `${path}.${randomUUID().slice(0, 8)}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeAll(fd, Buffer.from(lines.map((line) => `${line}\n`).join('')));
    fdatasyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(temp, path);
}

export interface Rescued {
  /** This namespace's fresh answers, as their lines, in the order found. */
  readonly lines: { readonly raw: string; readonly line: Line }[];
  /** Each file read, with the lines that are not this namespace's and are still fresh. */
  readonly files: { readonly path: string; readonly others: string[] }[];
}

export function readRescued(rescuePath: string, namespace: string, oldest: number): Rescued {
  const rescued: Rescued = { lines: [], files: [] };
  for (const path of rescueFiles(rescuePath)) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // taken in by another writer meanwhile
    }
    const others: string[] = [];
    for (const raw of text.split('\n')) {
      const line = parseLine(raw);
      if (!line || line.at < oldest) continue;
      if (line.ns === namespace) rescued.lines.push({ raw, line });
      else others.push(raw);
    }
    rescued.files.push({ path, others });
  }
  return rescued;
}

/** After the journal took this namespace's answers in: each file keeps only the others' answers. */
export function settleRescued(rescued: Rescued): void {
  for (const { path, others } of rescued.files) {
    if (others.length === 0) unlinkSync(path);
    else writeWhole(path, others);
  }
}
