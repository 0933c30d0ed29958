// The local stores of one user (issue 38) and what forget, held and prune do to each: every journal
// the registry names (cache-registry.ts), every journal in the cache folder (the MCP server's
// answers.jsonl), and any the caller names (--cache), each with the answers a run set aside for it.
// A journal that no longer exists is said as such, not an error (it was moved or deleted).
import { closeSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { IdentityMatcher, Outcome } from '@enrich/core';
import { parseLine, rescuePathFor, scanLines } from '../store/journal-file.js';
import { rescueFiles } from '../store/rescue-files.js';
import { registeredCaches } from './cache-registry.js';
import type { StoreReport } from './forget-log.js';
import { rewriteJournal } from './journal-rewrite.js';

export interface LocalStores {
  /** The user's data folder (the registry). */
  readonly dataDir: string;
  /** The user's cache folder: every `*.jsonl` in it is a journal (the MCP server's cache). */
  readonly cacheDir: string;
  /** Journals named by the caller (--cache), beside those found. */
  readonly extra?: readonly string[];
  /** Where rescue and side files are (the temp directory by default). */
  readonly rescueDir?: string;
  readonly lockWaitMs?: number;
}

/** Every journal path of the user, each once (resolved), in a stable order. */
export function localJournals(stores: LocalStores): string[] {
  const paths = new Set<string>();
  for (const cache of registeredCaches(stores.dataDir)) paths.add(resolve(cache.path));
  let names: string[] = [];
  try {
    names = readdirSync(stores.cacheDir);
  } catch {
    // No cache folder yet.
  }
  for (const name of names) if (name.endsWith('.jsonl')) paths.add(resolve(join(stores.cacheDir, name)));
  for (const path of stores.extra ?? []) paths.add(resolve(path));
  return [...paths].sort();
}

export const journalName = (path: string) => `journal ${path}`;

/** Removes every line that holds one of the identities from every local journal; a report per journal. */
export async function forgetLocal(stores: LocalStores, matcher: IdentityMatcher): Promise<StoreReport[]> {
  return rewriteEach(stores, (line) => matcher.find(line) !== undefined);
}

/** Removes every answer bought before `oldest` (epoch ms) from every local journal. */
export async function pruneLocal(stores: LocalStores, oldest: number): Promise<StoreReport[]> {
  return rewriteEach(stores, (line) => isOlder(line, oldest));
}

/** Whether a journal line is an answer bought before `oldest` (lines that are not answers are kept). */
export function isOlder(line: string, oldest: number): boolean {
  const parsed = parseLine(line);
  return parsed !== undefined && parsed.at < oldest;
}

async function rewriteEach(stores: LocalStores, drop: (line: string) => boolean): Promise<StoreReport[]> {
  const reports: StoreReport[] = [];
  for (const path of localJournals(stores)) {
    const store = journalName(path);
    if (!existsSync(path) && rescueFiles(rescuePathFor(path, stores.rescueDir ?? tmpdir())).length === 0) {
      reports.push({ store, removed: 0, missing: true });
      continue;
    }
    try {
      const { removed } = await rewriteJournal(path, drop, {
        ...(stores.rescueDir ? { rescueDir: stores.rescueDir } : {}),
        ...(stores.lockWaitMs === undefined ? {} : { lockWaitMs: stores.lockWaitMs }),
      });
      reports.push({ store, removed });
    } catch (error) {
      reports.push({ store, removed: 0, failed: (error as Error).message });
    }
  }
  return reports;
}

export interface HeldAnswer {
  readonly store: string;
  /** The service namespace (its origin, or "sandbox"). */
  readonly namespace: string;
  /** core's request key: the operation and the request's input. */
  readonly key: string;
  /** When it was bought (epoch ms). */
  readonly at: number;
  readonly outcome: Outcome;
}

/** Every kept answer of every local journal that holds one of the identities; reads only, takes no lock. */
export function heldLocal(stores: LocalStores, matcher: IdentityMatcher): HeldAnswer[] {
  const held: HeldAnswer[] = [];
  for (const path of localJournals(stores)) {
    const store = journalName(path);
    const onLine = (text: string) => {
      if (!matcher.find(text)) return;
      const line = parseLine(text);
      if (line) held.push({ store, namespace: line.ns, key: line.key, at: line.at, outcome: line.outcome });
    };
    if (existsSync(path)) {
      const fd = openSync(path, 'r');
      try {
        scanLines(fd, onLine);
      } finally {
        closeSync(fd);
      }
    }
    held.push(
      ...heldInSmallFiles(rescueFiles(rescuePathFor(path, stores.rescueDir ?? tmpdir())), store, matcher),
    );
  }
  return held;
}

/** The answers of rescue and side files (small, read whole) that hold one of the identities. */
export function heldInSmallFiles(
  paths: readonly string[],
  store: string,
  matcher: IdentityMatcher,
): HeldAnswer[] {
  const held: HeldAnswer[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      continue; // taken in by a writer meanwhile: its answers are where it put them now
    }
    for (const raw of text.split('\n')) {
      if (!matcher.find(raw)) continue;
      const line = parseLine(raw);
      if (line) held.push({ store, namespace: line.ns, key: line.key, at: line.at, outcome: line.outcome });
    }
  }
  return held;
}
