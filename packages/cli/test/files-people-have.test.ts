// Issue 23, items 1, 2 and 5, over real HTTP: the files Excel writes on Windows (Windows-1252,
// semicolons in most European locales, CRLF), tab and pipe files, a workbook renamed .csv, and a
// pipeline (--in - --out -). Every
// character of the user's own columns comes out as it went in; what cannot be read is refused
// before anything is spent.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { phone, runCli, sandboxEnv, startServer, tempDir } from './helpers.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function enrich(name: string, bytes: Buffer | string, extra: string[] = []) {
  const server = await startServer();
  close = () => server.close();
  const dir = tempDir();
  writeFileSync(join(dir, name), bytes);
  const ran = await runCli(['phone-lookup', '--in', name, '--out', 'out.csv', '--quiet', ...extra], {
    env: sandboxEnv(server),
    cwd: dir,
  });
  const out = (() => {
    try {
      return readFileSync(join(dir, 'out.csv'), 'utf8');
    } catch {
      return undefined;
    }
  })();
  return { ran, out, transactions: server.sandbox.transactions(), requests: server.sandbox.requests() };
}

/** Windows-1252 bytes of `text` (its characters are all in the code page). */
function cp1252(text: string): Buffer {
  const high: Record<string, number> = { '€': 0x80, '“': 0x93, '”': 0x94, '–': 0x96 };
  return Buffer.from([...text].map((c) => high[c] ?? c.charCodeAt(0)));
}

describe('a CSV saved by Excel on Windows in a European locale', () => {
  it('Windows-1252, semicolons, CRLF: read faithfully, said in the summary, written as UTF-8 with a BOM', async () => {
    const text = `Name;Phone;Note\r\nJosé Ñúñez;${phone(1)};“VIP” – 5 €\r\nZoë;${phone(2)};a;b\r\n`;
    const { ran, out } = await enrich('leads.csv', cp1252(text.replace('a;b', '"a;b"')));
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(
      /file +Windows-1252 \(detected\), semicolon-separated \(detected\); output in UTF-8 with a BOM/,
    );
    expect(out?.startsWith('\uFEFFName;Phone;Note;')).toBe(true);
    const lines = out?.slice(1).split('\r\n') ?? [];
    expect(lines[1]?.startsWith(`José Ñúñez;${phone(1)};“VIP” – 5 €;`)).toBe(true);
    expect(lines[2]?.startsWith(`Zoë;${phone(2)};"a;b";`)).toBe(true);
    expect(lines[1]?.endsWith(';ok')).toBe(true);
  });

  it('--encoding and --delimiter force what detection would not guess', async () => {
    // Valid UTF-8 by chance (the bytes of "Ã©" in Windows-1252 are é in UTF-8): the user says which.
    const bytes = cp1252(`Name|Phone\nJosÃ©|${phone(3)}\n`);
    const { out } = await enrich('x.csv', bytes, ['--encoding', 'windows-1252']);
    expect(out).toContain(`JosÃ©|${phone(3)}|`);
    const forced = await enrich('y.csv', `Name;Phone\nA;${phone(4)}\n`, ['--delimiter', ',']);
    expect(forced.ran.code).toBe(2); // one column "Name;Phone": no phone column to read
    expect(forced.requests).toBe(0);
    const bad = await enrich('z.csv', 'a\n', ['--encoding', 'ebcdic']);
    expect(bad.ran.stderr).toMatch(
      /--encoding takes one of utf-8, utf-16le, utf-16be, windows-1252; got "ebcdic"/,
    );
  });
});

describe('tab- and pipe-separated files', () => {
  it('.tsv is read and written with tabs; a pipe file with pipes', async () => {
    const tsv = await enrich('leads.tsv', `name\tphone\nAnn, Jr.\t${phone(5)}\n`);
    expect(tsv.out?.split('\n')[0]).toMatch(/^name\tphone\t.*\tstatus$/);
    expect(tsv.out?.split('\n')[1]).toMatch(new RegExp(`^Ann, Jr\\.\\t${phone(5)}\\t`));
    const pipe = await enrich('leads.txt', `name|phone\nBo|${phone(6)}\n`);
    expect(pipe.out?.split('\n')[1]).toMatch(new RegExp(`^Bo\\|${phone(6)}\\|.*\\|ok$`));
    expect(pipe.transactions).toBe(1);
  });
});

describe('a workbook renamed .csv', () => {
  it('is refused before anything is sent, saying what it is, with no zip bytes as column names', async () => {
    const { ran, requests } = await enrich(
      'leads.csv',
      Buffer.from('PK\u0003\u0004\u0014\u0000\u0006\u0000[Content_Types].xml'),
    );
    expect(ran.code).toBe(2);
    expect(requests).toBe(0);
    expect(ran.stderr).toMatch(
      /leads\.csv is a zip file \(an Excel workbook, \.xlsx, is one\), not a CSV\. Nothing was sent/,
    );
    expect(ran.stderr).not.toContain('Content_Types');
  });
});

describe('a pipeline', () => {
  it('--in - --out -: the rows come out on standard output, the summary on standard error', async () => {
    const server = await startServer();
    close = () => server.close();
    const dir = tempDir();
    const input = `name;phone\r\nZoë;${phone(7)}\r\nAl;${phone(8)}\r\nZoë;${phone(7)}\r\n`;
    const ran = await runCli(['phone-lookup', '--in', '-', '--out', '-', '--quiet'], {
      env: sandboxEnv(server),
      cwd: dir,
      stdin: input,
    });
    expect(ran.code).toBe(0);
    const lines = ran.stdout.split('\r\n');
    expect(lines[0]).toMatch(/^name;phone;.*;status$/);
    expect(lines.slice(1, 4).map((l) => l.split(';').slice(0, 2).join(';'))).toEqual([
      `Zoë;${phone(7)}`,
      `Al;${phone(8)}`,
      `Zoë;${phone(7)}`,
    ]);
    expect(ran.stdout).not.toMatch(/rows|transactions/);
    expect(ran.stderr).toMatch(/Phone Lookup: standard input -> standard output/);
    expect(ran.stderr).toMatch(/transactions spent +2\b/);
    // The answers are kept in the working folder's cache: the same pipeline again spends nothing.
    const again = await runCli(['phone-lookup', '--in', '-', '--quiet'], {
      env: sandboxEnv(server),
      cwd: dir,
      stdin: input,
    });
    expect(again.stdout).toBe(ran.stdout);
    expect(server.sandbox.transactions()).toBe(2);
  });
});
