// `--out -` delivers the output file's bytes, nothing changed: the real `enrich` binary, run twice
// on the same input against a sandbox over real HTTP, once with `--out <file>` (it pays for each
// distinct request) and once with `--out -` (from the answer cache: it pays nothing), gives the
// same bytes both ways. A workbook is binary (a zip): decoded as text on its way out it came out
// three times its size and unreadable. A CSV or JSON Lines output of a few MB, mostly non-ASCII,
// is read for delivery in 64 KiB chunks, so some of its characters straddle two chunks: decoded
// chunk by chunk, each such character became two U+FFFD. The input holds the key in a few rows:
// the run writes it hidden in the file (the engine scrubs what it writes), so the piped bytes, the
// file's own, never hold it either (scrub-io.ts says why nothing more is scrubbed on the way out).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_HIDDEN } from '@enrich/core';
import type { SandboxServer } from '@enrich/sandbox';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  BIN,
  type Billed,
  isolatedEnv,
  phone,
  recordBilling,
  sandboxEnv,
  startServer,
  stopRecording,
  tempDir,
  writeCsv,
} from './helpers.js';

const KEY = 'PIPECANARY-5b1e8d70-2c94-4f1a';
// Two runs of the real binary each, on 2 CPUs shared with other test runs.
const TIMEOUT_MS = 60_000;
/** The chunk size of the read stream that delivers the output (fs.createReadStream's default). */
const CHUNK = 64 * 1024;
const NAMES = [
  'Jürgen Müller-Lüdenscheidt',
  '山田 太郎 日本橋',
  'Zoë 😀🎉 Brontë',
  'Ελένη Παπαδοπούλου',
  'Þórr Ægisson',
];
const STREETS = [
  'Königstraße 12, Köln',
  '東京都中央区日本橋 1-2-3',
  'Οδός Ερμού 5, Αθήνα',
  'Rue de l’Été 7 🏠',
];

let server: SandboxServer;
let billed: Billed;

beforeAll(async () => {
  server = await startServer({ keys: [KEY] });
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  stopRecording(server);
  server.sandbox.reset();
  billed = recordBilling(server);
});

interface Ran {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

/** The real binary, its standard output kept as bytes (a pipe, as `| ...` or `> file` gives). */
function enrich(argv: readonly string[], cwd: string): Promise<Ran> {
  const child = spawn(process.execPath, [BIN, ...argv], {
    cwd,
    env: { PATH: process.env.PATH ?? '', ...isolatedEnv(), ...sandboxEnv(server, KEY) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => out.push(d));
  child.stderr?.on('data', (d) => {
    stderr += String(d);
  });
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr })),
  );
}

/** Length and digest: equal bytes, and a failure that says how far apart they are. */
function fingerprint(bytes: Buffer): { length: number; sha256: string } {
  return { length: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
}

/** The offsets k * 64 KiB where a chunk of delivery begins inside a multi-byte UTF-8 character. */
function boundariesInsideCharacters(bytes: Buffer): number[] {
  const inside: number[] = [];
  // A UTF-8 continuation byte is 10xxxxxx: the character began in the chunk before.
  for (let at = CHUNK; at < bytes.length; at += CHUNK) {
    if ((bytes.readUInt8(at) & 0xc0) === 0x80) inside.push(at);
  }
  return inside;
}

function occurrences(text: string, of: string): number {
  return text.split(of).length - 1;
}

/** Each distinct request paid once over both runs, by the sandbox's own count. */
function expectEachDistinctPaidOnce(distinct: number): void {
  expect(server.sandbox.stats().transactions).toBe(distinct);
  expect(billed.bodies.length).toBe(distinct);
  expect(new Set(billed.bodies).size).toBe(distinct);
}

describe('enrich --out - delivers the bytes --out <file> writes', () => {
  it(
    'a workbook: the piped .xlsx is byte for byte the written one, and opens',
    async () => {
      const distinct = 300;
      const rows = 2000;
      const cwd = tempDir();
      const book = new ExcelJS.Workbook();
      const sheet = book.addWorksheet('Leads');
      sheet.addRow(['Name', 'Street', 'Phone']);
      for (let i = 0; i < rows; i++) {
        sheet.addRow([`${NAMES[i % NAMES.length]} ${i}`, STREETS[i % STREETS.length], phone(i % distinct)]);
      }
      await book.xlsx.writeFile(join(cwd, 'book.xlsx'));

      const toFile = await enrich(['phone-lookup', '--in', 'book.xlsx', '--out', 'file.xlsx'], cwd);
      expect(toFile.code).toBe(0);
      const piped = await enrich(['phone-lookup', '--in', 'book.xlsx', '--out', '-'], cwd);
      expect(piped.code).toBe(0);

      const written = readFileSync(join(cwd, 'file.xlsx'));
      // Much bigger than a chunk, so delivery takes several: every one must arrive untouched.
      expect(written.length).toBeGreaterThan(2 * CHUNK);
      // Two runs, one file: a workbook's bytes hold no time of writing (its parts keep the input's
      // dates), so the same input and answers give the same bytes.
      expect(fingerprint(piped.stdout)).toEqual(fingerprint(written));
      // And what came down the pipe, saved as `> piped.xlsx` saves it, opens, every row in it.
      writeFileSync(join(cwd, 'piped.xlsx'), piped.stdout);
      const opened = new ExcelJS.Workbook();
      await opened.xlsx.readFile(join(cwd, 'piped.xlsx'));
      const read = opened.worksheets[0];
      expect(read?.rowCount).toBe(rows + 1);
      expect(read?.getRow(1).values).toContain('status');
      // The summary names the input file it read (not "standard input"), and where the rows went.
      expect(piped.stderr).toContain('Phone Lookup: book.xlsx -> standard output');
      expectEachDistinctPaidOnce(distinct);
    },
    TIMEOUT_MS,
  );

  it.each(['csv', 'jsonl'] as const)(
    'a %s of a few MB, non-ASCII across chunk boundaries: the same bytes, the key hidden',
    async (kind) => {
      const distinct = 150;
      const rows = 8000;
      const keyEvery = 400;
      const cwd = tempDir();
      const fields = (i: number) => ({
        name: `${NAMES[i % NAMES.length]} ${i}`,
        street: STREETS[i % STREETS.length] ?? '',
        note: i % keyEvery === 0 ? `pasted by mistake: ${KEY}` : NAMES.join(' · '),
        phone: phone(i % distinct),
      });
      const input = join(cwd, `leads.${kind}`);
      const records = Array.from({ length: rows }, (_, i) => fields(i));
      if (kind === 'csv') {
        writeCsv(input, [['name', 'street', 'note', 'phone'], ...records.map((r) => Object.values(r))]);
      } else {
        writeFileSync(input, records.map((r) => `${JSON.stringify(r)}\n`).join(''));
      }

      const toFile = await enrich(['phone-lookup', '--in', input, '--out', `file.${kind}`], cwd);
      expect(toFile.code).toBe(0);
      const piped = await enrich(['phone-lookup', '--in', input, '--out', '-'], cwd);
      expect(piped.code).toBe(0);

      const written = readFileSync(join(cwd, `file.${kind}`));
      expect(written.length).toBeGreaterThan(2 * 1024 * 1024);
      // The case this test is about: characters that straddle two chunks of delivery (the answers'
      // columns are ASCII, so this holds at a few of the 60-odd boundaries; the data fixes which).
      expect(boundariesInsideCharacters(written).length).toBeGreaterThan(0);
      expect(fingerprint(piped.stdout)).toEqual(fingerprint(written));
      // The key the input held is hidden in the file, so in what was piped too.
      const text = piped.stdout.toString('utf8');
      expect(text).not.toContain(KEY);
      expect(occurrences(text, KEY_HIDDEN)).toBe(rows / keyEvery);
      expectEachDistinctPaidOnce(distinct);
    },
    TIMEOUT_MS,
  );
});
