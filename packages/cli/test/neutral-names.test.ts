// Issue 27, item 5: everything written is neutral. Names as well as values from the service go
// through core's formula rule in the output CSV (the input's own columns are the user's and stay as
// they are); every string printed to a terminal is stripped of control characters and escape
// sequences, while --json stays data. Over real HTTP: small node:http servers (hostile-servers.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { looksLikeFormula } from '@enrich/core';
import { DEMO_KEY } from '@enrich/sandbox';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { printable, terminalText } from '../src/terminal-text.js';
import { FORMULA_FIELD_NAMES, fieldNameFormula } from './edge-neutral.scenario.js';
import { phone, readCsv, runCli, tempDir, writeCsv } from './helpers.js';
import { type Behaviour, type Hostile, phoneRecord, startHostile } from './hostile-servers.js';

/** Any C0 control but tab and newline, DEL, or a C1 control. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

function envOf(hostile: Hostile): Record<string, string> {
  return { ENRICH_API_KEY: DEMO_KEY, ENRICH_BASE_URL: hostile.url, ENRICH_BASE_URL_V3: hostile.url };
}

async function withHostile<T>(behaviour: Behaviour, run: (hostile: Hostile) => Promise<T>): Promise<T> {
  const hostile = await startHostile(behaviour);
  try {
    return await run(hostile);
  } finally {
    await hostile.close();
  }
}

/** A billed 200: the documented record of the phone asked for, changed by `change`. */
function answer(change: (record: Record<string, unknown>) => Record<string, unknown>): Behaviour {
  return (req, res, bill) => {
    bill();
    const asked = (JSON.parse(req.body) as { Phone?: string }).Phone ?? '';
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(change(phoneRecord(asked))));
  };
}

describe('the output CSV: names from the service go through the formula rule', () => {
  it('extra fields named =HYPERLINK(...) and @x become header cells with the quote in front; the CSV still parses', async () => {
    const m = await fieldNameFormula.run();
    expect(m.code).toBe(0);
    const rows = readCsv(join(m.dir, 'out.csv'));
    const header = rows[0] ?? [];
    for (const name of FORMULA_FIELD_NAMES) {
      expect(header).toContain(`'${name}`);
      expect(header).not.toContain(name);
    }
    expect(header.filter(looksLikeFormula)).toEqual([]);
    // Every row as wide as the header; the values under the neutralised names are the answer's.
    for (const row of rows) expect(row).toHaveLength(header.length);
    for (const record of m.rows) {
      expect(record[`'${FORMULA_FIELD_NAMES[0]}`]).toBe('click me');
      expect(record[`'${FORMULA_FIELD_NAMES[1]}`]).toBe('at');
      expect(record.status).toMatch(/^ok \(/);
    }
    expect(header.at(-1)).toBe('status');
  });

  it("the input's own column names and values are copied as they are; only the service's names change", async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['phone', '=SUM(1,2)', '@note'],
      [phone(1), '=1+1', '+33'],
    ]);
    await withHostile(
      answer((record) => ({ ...record, '=SUM(1,2)': 'from the service', '-minus': 'x' })),
      async (hostile) => {
        const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
          env: envOf(hostile),
          cwd: dir,
        });
        expect(ran.code).toBe(0);
      },
    );
    const rows = readCsv(join(dir, 'out.csv'));
    const [header = [], row = []] = rows;
    expect(header.slice(0, 3)).toEqual(['phone', '=SUM(1,2)', '@note']);
    expect(row.slice(0, 3)).toEqual([phone(1), '=1+1', '+33']);
    // The service's fields named like formulas (one also like an input column): neutralised.
    expect(header).toContain(`'=SUM(1,2)`);
    expect(header).toContain(`'-minus`);
    expect(header.slice(3).filter(looksLikeFormula)).toEqual([]);
    expect(new Set(header).size).toBe(header.length);
  });
});

describe('the terminal: no control characters or escape sequences from outside', () => {
  it('a missing column: the error names the header columns readably, with no ESC or BEL', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [
      ['\u001b]0;pwned\u0007phone', '\u001b[2Jname'],
      [phone(1), 'Ada'],
    ]);
    const ran = await withHostile(
      answer((r) => r),
      async (hostile) => {
        const result = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
          env: envOf(hostile),
          cwd: dir,
        });
        expect(hostile.requests).toBe(0);
        return result;
      },
    );
    expect(ran.code).toBe(2);
    expect(ran.stderr).not.toMatch(CONTROL);
    expect(ran.stdout).not.toMatch(CONTROL);
    expect(ran.stderr).toMatch(/columns: phone, name\)/);
    expect(ran.stderr).not.toContain('pwned');
  });

  it('the one-call table: a field value and a field name holding escapes print no ESC byte; --json keeps them as data', async () => {
    const city = '\u001b]0;pwned\u0007Springfield';
    const name = '\u001b[2Jevil';
    const value = '\u001b[31mred\u009b2J\u007f';
    const behaviour = answer((record) => ({
      ...record,
      Address: { ...(record.Address as object), City: city },
      [name]: value,
    }));
    await withHostile(behaviour, async (hostile) => {
      const env = envOf(hostile);
      const cwd = tempDir();
      const table = await runCli(['phone-lookup', '--Phone', phone(1)], { env, cwd });
      expect(table.code).toBe(0);
      expect(table.stdout).not.toMatch(CONTROL);
      expect(table.stderr).not.toMatch(CONTROL);
      expect(table.stdout).toMatch(/City +Springfield/);
      expect(table.stdout).toMatch(/^evil \* +red$/m);

      const json = await runCli(['phone-lookup', '--Phone', phone(1), '--json'], { env, cwd });
      expect(json.code).toBe(0);
      // Data: escaped by JSON, not stripped; it parses back to exactly what the service sent.
      expect(json.stdout).not.toMatch(CONTROL);
      const parsed = JSON.parse(json.stdout) as {
        record: { Address: { City: string } };
        extra: Record<string, string>;
      };
      expect(parsed.record.Address.City).toBe(city);
      expect(parsed.extra[name]).toBe(value);
    });
  });

  it('a bulk run: the note naming the extra columns prints no control character', async () => {
    const dir = tempDir();
    writeCsv(join(dir, 'in.csv'), [['phone'], [phone(1)]]);
    const name = '\u001b]0;pwned\u0007telco';
    await withHostile(
      answer((record) => ({ ...record, [name]: '\u001b[2Jvalue' })),
      async (hostile) => {
        const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
          env: envOf(hostile),
          cwd: dir,
        });
        expect(ran.code).toBe(0);
        expect(ran.stdout + ran.stderr).not.toMatch(CONTROL);
        expect(ran.stderr).toMatch(/extra columns added: telco/);
      },
    );
    // The output file is not the terminal: the name and value are kept as they came.
    const text = readFileSync(join(dir, 'out.csv'), 'utf8');
    const [header = [], row = []] = parse(text, { relax_column_count: true }) as string[][];
    const at = header.indexOf(name);
    expect(at).toBeGreaterThan(0);
    expect(row[at]).toBe('\u001b[2Jvalue');
  });
});

describe('terminalText and printable', () => {
  it.each([
    ['an OSC ended by BEL (sets the title)', '\u001b]0;pwned\u0007phone', 'phone'],
    ['an OSC ended by ESC \\', 'a\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\b', 'alinkb'],
    ['a CSI (clears the screen)', '\u001b[2Jname', 'name'],
    ['a CSI with parameters (colour)', '\u001b[1;31mred\u001b[0m', 'red'],
    ['an 8-bit CSI', 'x\u009b31my', 'xy'],
    ['an 8-bit OSC ended by ST', 'x\u009d0;t\u009cy', 'xy'],
    ['a DCS', 'x\u001bPq#0\u001b\\y', 'xy'],
    ['a two-character escape (reset)', 'x\u001bcy', 'xy'],
    ['a charset escape', 'x\u001b(By', 'xy'],
    ['a lone ESC at the end', 'x\u001b', 'x'],
    ['an OSC never ended', 'x\u001b]0;title', 'x0;title'],
    ['C0, DEL and C1 controls', 'a\u0000b\u0007c\bd\re\u007ff\u0085g', 'abcdefg'],
  ])('strips %s', (_what, text, expected) => {
    expect(terminalText(text)).toBe(expected);
  });

  it('keeps tabs, line breaks and every other character', () => {
    const text = 'Zoë\tMüller\n東京 🙂 — ok';
    expect(terminalText(text)).toBe(text);
  });

  it('printable: one value on one line (line breaks and tabs shown, not obeyed)', () => {
    expect(printable('a\nb\tc\u001b[2Jd')).toBe('a\\nb\\tcd');
  });
});
