// Every way a row source ends lets go of its file: closed after its header only (a client that reads
// the header to map columns, a plan stopped before counting), closed after reading, refused as
// unreadable, and a plan whose answer cache cannot be opened. (Files large enough that reading the
// header does not reach their end, where the stream would close itself.) A file held open is one the
// user cannot delete or replace on Windows, and a long-lived server (MCP, VS Code) runs out of them.
import { readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { getOperation } from '@enrich/core';
import { describe, expect, it } from 'vitest';
import { openSource, readHeader } from '../src/formats/open-source.js';
import { planBulk } from '../src/run/plan-bulk.js';
import { useTempDir } from './fixtures.js';

const temp = useTempDir();

/** Descriptors of this process open on `path`. */
function openOn(path: string): number {
  let count = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(join('/proc/self/fd', fd)) === path) count++;
    } catch {
      // Closed between the listing and the read.
    }
  }
  return count;
}

/** Waits (up to 2 s) for the descriptors on `path` to be closed: a stream closes after a turn or two. */
async function closedOn(path: string): Promise<number> {
  for (let i = 0; i < 200 && openOn(path) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
  return openOn(path);
}

const PHONES = (count: number) =>
  ['Phone', ...Array.from({ length: count }, (_, i) => String(5550100000 + i))].join('\n');

describe('a row source lets go of its file', () => {
  it.each([
    ['a CSV', 'leads.csv', PHONES(50_000)],
    ['a CSV in Windows-1252', 'leads-1252.csv', `Name;Phone\nJosé;5550102030\n${PHONES(50_000)}`],
    ['a JSON Lines file', 'leads.jsonl', '{"Phone":"5550102030"}\n{"Phone":"5550102031"}\n'],
  ])('%s closed after its header, and after reading it', async (_kind, name, text) => {
    const path = join(temp.dir, name);
    writeFileSync(path, name.includes('1252') ? Buffer.from(text, 'latin1') : text);
    const source = await openSource(path);
    expect(source.header.length).toBeGreaterThan(0);
    source.close();
    expect(await closedOn(path)).toBe(0);
    expect(await readHeader(path)).toEqual(source.header);
    expect(await closedOn(path)).toBe(0);
    const read = await openSource(path);
    while ((await read.nextBatch()) !== undefined);
    read.close();
    expect(await closedOn(path)).toBe(0);
  });

  it('a CSV refused as unreadable from its first line', async () => {
    const path = join(temp.dir, 'broken.csv');
    writeFileSync(path, `"Phone"x\n${PHONES(50_000)}`);
    await expect(openSource(path)).rejects.toThrow(/is not a readable CSV/);
    expect(await closedOn(path)).toBe(0);
  });

  it('a plan whose answer cache cannot be opened', async () => {
    const path = join(temp.dir, 'leads.csv');
    writeFileSync(path, PHONES(50_000));
    // A folder where the cache file should be: it cannot be opened.
    const cachePath = temp.dir;
    const bases = { baseUrl: 'http://127.0.0.1:9', baseUrlV3: 'http://127.0.0.1:9', sandbox: true };
    await expect(
      planBulk({ op: getOperation('phone-lookup'), inPath: path, cachePath, bases }),
    ).rejects.toThrow(/EISDIR|directory/);
    expect(await closedOn(path)).toBe(0);
  });
});
