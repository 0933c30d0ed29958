// A UTF-8 file with a few bytes that are not UTF-8 (one 0xFC, a Latin-1 "ü", pasted into row
// 89,999 of 100,000): read as Windows-1252 every "Müller" of the file would come out "MÃ¼ller", read
// as UTF-8 the byte would become U+FFFD. Neither is what the file says, so it is refused before
// anything is sent, naming the line and the byte. A file with no UTF-8 character at all is still
// Windows-1252, however far in its first high byte is; --encoding utf-8 never turns a byte into U+FFFD.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { layoutOf } from '../src/formats/csv-layout.js';
import { BulkError } from '../src/run/bulk-error.js';
import { runBulk } from '../src/run/run-bulk.js';
import { useSandbox } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

const at = useSandbox();

const UTF8_U = Buffer.from('ü'); // C3 BC
const LATIN1_U = Buffer.from([0xfc]); // ü in Windows-1252 and Latin-1: never a byte of UTF-8

/**
 * A Name,Phone file of `rows` data rows, each name "M?ller <i>" whose "ü" is spelled by
 * `u(i)` (UTF-8, Windows-1252, or "u" for plain ASCII).
 */
function leads(rows: number, u: (i: number) => Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from('Name,Phone\n')];
  for (let i = 1; i <= rows; i++) {
    parts.push(Buffer.from('M'), u(i), Buffer.from(`ller ${i},${phone(i)}\n`));
  }
  return Buffer.concat(parts);
}

function refusal(run: () => unknown): BulkError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(BulkError);
    return error as BulkError;
  }
  throw new Error('not refused');
}

describe('a UTF-8 file with a few bytes that are not UTF-8', () => {
  it('is refused before anything is sent, naming the line and the byte, with --encoding as the way out', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'people.csv');
    const outPath = join(dir, 'out.csv');
    // Data row 89,999 is line 90,000 of the file (the header is line 1), about 2.2 MB in.
    writeFileSync(
      inPath,
      leads(100_000, (i) => (i === 89_999 ? LATIN1_U : UTF8_U)),
    );
    // Stops a run that starts sending (today's code read the file as Windows-1252 and sent all
    // 100,000 rows): the test then fails at once on the count below rather than minutes later.
    const stop = new AbortController();
    const run = runBulk({
      ...sandboxRun(server, { inPath, outPath }),
      signal: stop.signal,
      onPaid: () => stop.abort(),
    });
    const refused = await run.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(server.sandbox.transactions()).toBe(0);
    expect(server.sandbox.requests()).toBe(0);
    expect(refused).toBeInstanceOf(BulkError);
    const message = (refused as BulkError).message;
    expect(message).toMatch(
      /people\.csv is UTF-8 except at 1 place: the byte 0xFC on line 90,000 \(the header is line 1\)/,
    );
    expect(message).toMatch(/Nothing was sent/);
    expect(message).toMatch(/if the file is Windows-1252, say --encoding windows-1252/);
    expect(existsSync(outPath)).toBe(false);
    expect(existsSync(`${outPath}.partial`)).toBe(false);
  });

  it('is refused when its first UTF-8 character comes long after the bad byte (the whole file decides)', () => {
    const path = join(at.dir, 'late.csv');
    // A bad byte on row 10, and the file's only UTF-8 character on row 89,999: a check that decided
    // at the first bad byte, or on the first 64 KB, would call it Windows-1252.
    writeFileSync(
      path,
      leads(100_000, (i) => (i === 10 ? LATIN1_U : i === 89_999 ? UTF8_U : Buffer.from('u'))),
    );
    expect(refusal(() => layoutOf(path)).message).toMatch(
      /late\.csv is UTF-8 except at 1 place: the byte 0xFC on line 11 \(the header is line 1\)/,
    );
  });

  it('says how many places are not UTF-8, naming the first', () => {
    const path = join(at.dir, 'three.csv');
    writeFileSync(
      path,
      leads(5_000, (i) => ([7, 4_000, 4_999].includes(i) ? LATIN1_U : UTF8_U)),
    );
    expect(refusal(() => layoutOf(path)).message).toMatch(
      /three\.csv is UTF-8 except at 3 places, the first the byte 0xFC on line 8 \(the header is line 1\)/,
    );
  });

  it('is read as Windows-1252 when the user says so (--encoding windows-1252)', () => {
    const path = join(at.dir, 'said.csv');
    writeFileSync(
      path,
      leads(1_000, (i) => (i === 999 ? LATIN1_U : UTF8_U)),
    );
    expect(layoutOf(path, { encoding: 'windows-1252' })).toMatchObject({
      encoding: 'windows-1252',
      detected: { encoding: false },
    });
  });
});

describe('a file with no UTF-8 character', () => {
  it('is Windows-1252 when its high bytes run from the first row to the last (a Latin-1 file)', () => {
    const path = join(at.dir, 'latin.csv');
    writeFileSync(
      path,
      leads(100_000, () => LATIN1_U),
    );
    expect(layoutOf(path)).toMatchObject({ encoding: 'windows-1252', detected: { encoding: true } });
  });

  it('is Windows-1252 when its only high byte is far in', () => {
    const path = join(at.dir, 'far.csv');
    writeFileSync(
      path,
      leads(100_000, (i) => (i === 89_999 ? LATIN1_U : Buffer.from('u'))),
    );
    expect(layoutOf(path).encoding).toBe('windows-1252');
  });
});

describe('--encoding utf-8 (or a UTF-8 BOM) on a file with a byte that is not UTF-8', () => {
  it('is refused before anything is sent, and nothing is written: the byte never becomes U+FFFD', async () => {
    const { dir, server } = at;
    const inPath = join(dir, 'forced.csv');
    const outPath = join(dir, 'out.csv');
    writeFileSync(
      inPath,
      leads(3, (i) => (i === 2 ? LATIN1_U : UTF8_U)),
    );
    const refused = await runBulk(
      sandboxRun(server, { inPath, outPath }, { layout: { encoding: 'utf-8' } }),
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(server.sandbox.transactions()).toBe(0);
    expect(refused).toBeInstanceOf(BulkError);
    expect((refused as BulkError).message).toMatch(
      /forced\.csv is read as UTF-8 \(--encoding utf-8\) but is not UTF-8 at 1 place: the byte 0xFC on line 3 \(the header is line 1\)\. Nothing was sent/,
    );
    // No output at all: read on, the row would have been written with U+FFFD in place of the byte.
    expect(existsSync(outPath)).toBe(false);
    expect(existsSync(`${outPath}.partial`)).toBe(false);
  });

  it('a BOM that says UTF-8 is held to it as --encoding utf-8 is', () => {
    const path = join(at.dir, 'bom.csv');
    writeFileSync(
      path,
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), leads(3, (i) => (i === 3 ? LATIN1_U : UTF8_U))]),
    );
    expect(refusal(() => layoutOf(path)).message).toMatch(
      /bom\.csv is read as UTF-8 \(its byte order mark says so\) but is not UTF-8 at 1 place: the byte 0xFC on line 4/,
    );
  });
});
