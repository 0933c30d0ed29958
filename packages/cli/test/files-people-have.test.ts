// Issue 23 over real HTTP, each file written as the tool that makes it writes it: what Excel saves
// on Windows (Windows-1252, semicolons in most European locales, CRLF; "Unicode Text", UTF-16 with
// tabs), tab and pipe files, JSON Lines as pandas and DuckDB write them, rows that do not fit the
// header, files that are not what their names say, and pipelines (--in - --out -). Every character
// of the user's own columns comes out as it went in; what cannot be read is refused before
// anything is spent. (Workbooks: packages/bulk/test/xlsx.test.ts and xlsx-cli.test.ts.)
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { phone, runCli, sandboxEnv, startServer, tempDir } from './helpers.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

async function enrich(name: string, bytes: Buffer | string, extra: string[] = [], outName = 'out.csv') {
  const server = await startServer();
  close = () => server.close();
  const dir = tempDir();
  writeFileSync(join(dir, name), bytes);
  const ran = await runCli(['phone-lookup', '--in', name, '--out', outName, '--quiet', ...extra], {
    env: sandboxEnv(server),
    cwd: dir,
  });
  const out = (() => {
    try {
      return readFileSync(join(dir, outName), 'utf8');
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

describe("Excel's Unicode Text", () => {
  it('UTF-16 LE with a BOM, tabs, CRLF: every character kept, the output UTF-8 with a BOM and tabs', async () => {
    const text = `Name\tPhone\r\n李小龍\t${phone(9)}\r\nÅsa Öberg\t${phone(10)}\r\n`;
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const { ran, out, transactions } = await enrich('leads.txt', bytes);
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/file +UTF-16 LE \(detected\) with a BOM, tab-separated \(detected\)/);
    const lines = out?.slice(1).split('\r\n') ?? [];
    expect(lines.slice(1, 3).map((l) => l.split('\t').slice(0, 2).join('\t'))).toEqual([
      `李小龍\t${phone(9)}`,
      `Åsa Öberg\t${phone(10)}`,
    ]);
    expect(lines.slice(1, 3).every((l) => l.endsWith('\tok'))).toBe(true);
    expect(transactions).toBe(2);
  });
});

describe('JSON Lines', () => {
  // As pandas writes them (to_json(orient="records", lines=True): non-ASCII and "/" escaped,
  // numbers as numbers) and as DuckDB's COPY ... (FORMAT JSON) does (UTF-8 as it is).
  const pandas = [
    `{"name":"Jos\\u00e9 \\u00d1\\u00fa\\u00f1ez","phone":${phone(11)},"site":"a\\/b","score":1.50}`,
    `{"name":"Zo\\u00eb","phone":"${phone(12)}","site":null,"score":2}`,
  ];
  const duckdb = [
    `{"name":"Zoë","phone":"${phone(12)}","tags":["vip", "eu"],"id":12345678901234567890}`,
    `{"name":"Al","phone":"not a phone","tags":[],"id":1}`,
  ];

  it('each line is kept byte for byte, the answer added after its own keys; read from JSON Lines, written as JSON Lines', async () => {
    const input = `${[...pandas, ...duckdb].join('\n')}\n`;
    const { ran, out, transactions } = await enrich('leads.jsonl', input, [], 'out.jsonl');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/file +JSON Lines \(UTF-8\)/);
    const lines = out?.split('\n') ?? [];
    expect(lines).toHaveLength(5);
    expect(lines[4]).toBe('');
    [...pandas, ...duckdb].forEach((line, i) => {
      expect(lines[i]?.startsWith(`${line.slice(0, -1)},"FName":`)).toBe(true);
      expect(JSON.parse(lines[i] as string)).toMatchObject(JSON.parse(line));
    });
    expect(JSON.parse(lines[0] as string).status).toBe('ok');
    expect(JSON.parse(lines[3] as string).status).toMatch(/^invalid: Phone must be numeric only/);
    expect(transactions).toBe(2); // phone 12 is asked once, in two spellings of two tools
  });

  it('read into a CSV: each value as the line writes it (1.50, every digit of a long id)', async () => {
    const { out } = await enrich('leads.ndjson', `${duckdb[0]}\n${pandas[0]}\n`, ['--fields', 'default']);
    const lines = out?.split('\n') ?? [];
    expect(lines[0]).toMatch(/^name,phone,tags,id,site,score,FName,/);
    expect(lines[1]?.startsWith(`Zoë,${phone(12)},"[""vip"", ""eu""]",12345678901234567890,,,`)).toBe(true);
    expect(lines[2]?.startsWith(`José Ñúñez,${phone(11)},,,a/b,1.50,`)).toBe(true);
  });

  it('a line that is not a JSON object is refused before anything is sent, by its number, never its text', async () => {
    const { ran, requests } = await enrich('leads.jsonl', `${pandas[0]}\n{"name":"secret", phone}\n`);
    expect(ran.code).toBe(2);
    expect(requests).toBe(0);
    expect(ran.stderr).toMatch(/leads\.jsonl line 2 is not valid JSON\. Nothing was sent/);
    expect(ran.stderr).not.toContain('secret');
  });
});

describe('rows that do not fit the header', () => {
  it('a long row keeps its fields after status (nothing sent for it); a short row is padded', async () => {
    const { ran, out, requests } = await enrich('leads.csv', `name,phone\nAnn,${phone(13)},x,"y,z"\nBo\n`);
    expect(ran.code).toBe(0);
    expect(requests).toBe(0);
    const lines = out?.split('\n') ?? [];
    const width = lines[0]?.split(',').length ?? 0;
    expect(lines[1]).toMatch(
      new RegExp(
        `^Ann,${phone(13)},(,)*"invalid: the row has 4 fields but the header has 2; nothing is sent for it, and its extra fields are kept after the status column",x,"y,z"$`,
      ),
    );
    expect(lines[2]?.startsWith('Bo,,')).toBe(true);
    expect(lines[2]?.split(',')).toHaveLength(width);
  });
});

describe('a file that is not what its name says', () => {
  it('a workbook, an HTML page, JSON named .csv: refused before anything is sent, naming what it looks like, no bytes shown', async () => {
    const zip = await enrich(
      'leads.csv',
      Buffer.from('PK\u0003\u0004\u0014\u0000\u0006\u0000[Content_Types].xml'),
    );
    expect(zip.ran.code).toBe(2);
    expect(zip.requests).toBe(0);
    expect(zip.ran.stderr).toMatch(
      /leads\.csv is named as a CSV but looks like a zip file \(an Excel workbook is one\)\. Nothing was sent\. A workbook is read when its name ends in \.xlsx/,
    );
    expect(zip.ran.stderr).not.toContain('Content_Types');
    const page = await enrich(
      'export.csv',
      '<!DOCTYPE html>\n<html><body><table><tr><td>Secret Name</td></tr></table>',
    );
    expect(page.ran.code).toBe(2);
    expect(page.requests).toBe(0);
    expect(page.ran.stderr).toMatch(
      /export\.csv is named as a CSV but looks like an HTML page\. Nothing was sent/,
    );
    expect(page.ran.stderr).not.toContain('Secret');
    const json = await enrich('leads.csv', `{"phone":"${phone(14)}"}\n`);
    expect(json.ran.stderr).toMatch(
      /looks like JSON Lines\. Nothing was sent\. JSON Lines are read when the name ends in \.jsonl/,
    );
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

  it('JSON Lines down a pipe come out as JSON Lines, each line kept', async () => {
    const server = await startServer();
    close = () => server.close();
    const input = `{"name":"Zoë","phone":"${phone(15)}"}\n{"name":"Al","phone":${phone(16)}}\n`;
    const ran = await runCli(['phone-lookup', '--in', '-', '--quiet'], {
      env: sandboxEnv(server),
      cwd: tempDir(),
      stdin: input,
    });
    expect(ran.code).toBe(0);
    const lines = ran.stdout.split('\n');
    expect(lines[0]?.startsWith(`{"name":"Zoë","phone":"${phone(15)}","FName":`)).toBe(true);
    expect(lines[1]?.startsWith(`{"name":"Al","phone":${phone(16)},"FName":`)).toBe(true);
    expect(lines.slice(0, 2).map((l) => JSON.parse(l).status)).toEqual(['ok', 'ok']);
    expect(ran.stderr).toMatch(/file +JSON Lines \(UTF-8\)/);
  });
});
