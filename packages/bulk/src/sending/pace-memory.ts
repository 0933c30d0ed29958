// The pace each service allowed at the end of the last run (what is kept, and why: core's
// remembered-pace.ts), in one small JSON file, so that the next run against the same service starts
// there instead of climbing from 8. Clients keep it in the user's cache folder (cache-folder.ts);
// the engine reads and writes only the file it is given.
//
// One entry per service (the answer cache's namespace: the base's origin and path, or "sandbox")
// and API key, since a service may give each key its own allowance. The key is never written: only
// the SHA-256 of a random salt, kept in the file, and the key. (The salt keeps the hash from telling
// whether a known key, or another machine's file, matches.)
//
// The file is written whole under a private name and renamed over the old one, so a reader never
// sees half of it; two runs that end at once each rename their own, and the last wins (the other's
// entry waits for its next run: this is a hint, not a record). Not synced to disk: a file lost in a
// crash only costs the next run its climb. Entries older than 30 days are ignored, and dropped at
// the next write: a service changes. Nothing here fails a run: a file that cannot be read (missing,
// not a regular file, too big, not ours) is no memory, and one that cannot be written is left as it
// was.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { closeSync, fstatSync, linkSync, mkdirSync, readSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { RememberedPace } from '@enrich/core';
import { openRegularFile, removeQuietly } from '../run/file-guard.js';

/**
 * Entries older than this are ignored. Not the answers' maximum age (forget/retention.ts), though
 * also 30 days: a pace holds no personal data and the user's retention does not govern it; it goes
 * stale because a service changes, whatever answers the user keeps.
 */
export const PACE_MAX_AGE_MS = 30 * 24 * 3600 * 1000;
/** A file larger than this is not ours (a few hundred bytes per service and key). */
const MAX_BYTES = 1 << 20;
/** The most entries kept: the most recent ones. */
const MAX_ENTRIES = 200;
const VERSION = 1;

interface Entry extends RememberedPace {
  /** When it was written (ISO 8601). */
  readonly at: string;
}

interface PaceFile {
  readonly version: typeof VERSION;
  readonly salt: string;
  readonly paces: Record<string, Entry>;
}

export class PaceMemory {
  constructor(
    readonly path: string,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The pace kept for this service and key, if fresh. */
  recall(service: string, apiKey: string): RememberedPace | undefined {
    const file = this.read();
    if (!file) return undefined;
    const entry = file.paces[entryKey(file.salt, service, apiKey)];
    if (!entry || !this.isFresh(entry)) return undefined;
    const { at: _at, ...pace } = entry;
    return pace;
  }

  /** Keeps `pace` for this service and key, in place of what was kept. */
  remember(service: string, apiKey: string, pace: RememberedPace): void {
    const before = this.read();
    const salt = before?.salt ?? randomBytes(16).toString('hex');
    const kept = Object.entries(before?.paces ?? {})
      .filter(([, entry]) => this.isFresh(entry))
      .sort(([, a], [, b]) => Date.parse(b.at) - Date.parse(a.at))
      .slice(0, MAX_ENTRIES - 1);
    const paces: Record<string, Entry> = Object.fromEntries(kept);
    paces[entryKey(salt, service, apiKey)] = { ...pace, at: new Date(this.clock()).toISOString() };
    this.write({ version: VERSION, salt, paces });
  }

  /**
   * The name runs against this service with this key share (pace-neighbours.ts): the hash of the
   * key with this file's salt, the file written with a salt first if it has none.
   */
  group(service: string, apiKey: string): string {
    let file = this.read();
    if (!file) {
      file = { version: VERSION, salt: randomBytes(16).toString('hex'), paces: {} };
      // Linked into place only if there is still no file: of two runs starting at once with none,
      // both then use the salt of the one that linked first.
      this.write(file, 'link');
      file = this.read() ?? file;
    }
    return createHash('sha256')
      .update(entryKey(file.salt, service, apiKey))
      .digest('hex')
      .slice(0, 32);
  }

  /** Written whole under a private name, then renamed over the file (or linked, only where there is none). */
  private write(file: PaceFile, how: 'rename' | 'link' = 'rename'): void {
    const temp = `${this.path}.${randomUUID().slice(0, 8)}.tmp`;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      writeFileSync(temp, `${JSON.stringify(file, null, 1)}\n`, { flag: 'wx', mode: 0o600 });
      if (how === 'rename') renameSync(temp, this.path);
      else linkSync(temp, this.path);
    } catch {
      // A hint that could not be kept: the run it describes is done, and the next one climbs.
    } finally {
      removeQuietly(temp);
    }
  }

  private isFresh(entry: Entry): boolean {
    const age = this.clock() - Date.parse(entry.at);
    return age >= 0 && age <= PACE_MAX_AGE_MS;
  }

  /** The file, if it is one of ours; its entries of the wrong shape left out. */
  private read(): PaceFile | undefined {
    let text: string;
    try {
      const fd = openRegularFile(this.path);
      try {
        const size = fstatSync(fd).size;
        if (size > MAX_BYTES) return undefined;
        const buffer = Buffer.alloc(size);
        const got = readSync(fd, buffer, 0, size, 0);
        text = buffer.toString('utf8', 0, got);
      } finally {
        closeSync(fd);
      }
    } catch {
      return undefined;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isObject(parsed) || parsed.version !== VERSION || typeof parsed.salt !== 'string') return undefined;
    if (!isObject(parsed.paces)) return undefined;
    const paces: Record<string, Entry> = {};
    for (const [key, value] of Object.entries(parsed.paces)) {
      const entry = entryOf(value);
      if (entry) paces[key] = entry;
    }
    return { version: VERSION, salt: parsed.salt, paces };
  }
}

/** The entry's name: the service as it is, the key only as the salted hash. */
function entryKey(salt: string, service: string, apiKey: string): string {
  const hash = createHash('sha256').update(salt).update('\0').update(apiKey).digest('hex');
  return `${service} ${hash}`;
}

function entryOf(value: unknown): Entry | undefined {
  if (!isObject(value)) return undefined;
  const { concurrency, ratePerSecond, baselineMs, climbing, at } = value;
  if (!isPositive(concurrency) || !isPositive(baselineMs) || typeof climbing !== 'boolean') return undefined;
  if (ratePerSecond !== undefined && !isPositive(ratePerSecond)) return undefined;
  if (typeof at !== 'string' || Number.isNaN(Date.parse(at))) return undefined;
  return { concurrency, baselineMs, climbing, at, ...(ratePerSecond === undefined ? {} : { ratePerSecond }) };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
