// JSON Lines through the engine, and the rows of a CSV that do not fit its header, against the
// sandbox over real HTTP: lines kept byte for byte through the window and the spill, the extra
// columns of answers not as documented added before status, a long row's own fields after it.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { topLevelValues } from '../src/formats/jsonl-source.js';
import { type BulkOptions, runBulk } from '../src/index.js';
import { useSandbox } from './fixtures.js';
import { phone, sandboxRun } from './sandbox-run.js';

// Every answer with fields not as documented, and a little latency, so that rows wait in the window
// and on disk for their answers.
const at = useSandbox({ misbehave: ['extra-fields'], latencyMs: 10 });

function options(inPath: string, outName: string, windowRows?: number): BulkOptions {
  const { dir, server } = at;
  return sandboxRun(
    server,
    { inPath, outPath: join(dir, outName) },
    {
      cachePath: join(dir, 'cache.jsonl'),
      allExtras: true,
      concurrency: 3,
      ...(windowRows ? { windowRows } : {}),
    },
  );
}

describe('topLevelValues', () => {
  it("gives each key's value as the line writes it", () => {
    const line = '{ "a" : 1.50 , "b":"x\\"y,}","c":{"d":[1, {"e":"]"}]},"n":null,"a":12345678901234567890 }';
    expect(Object.fromEntries(topLevelValues(line))).toEqual({
      a: '12345678901234567890',
      b: '"x\\"y,}"',
      c: '{"d":[1, {"e":"]"}]}',
      n: 'null',
    });
    expect(topLevelValues('{}').size).toBe(0);
  });
});

describe('JSON Lines through the engine', () => {
  it('each line kept byte for byte, through the window and the spill alike, extras before status', async () => {
    const { dir } = at;
    const lines: string[] = [];
    for (let i = 0; i < 40; i++) {
      const p = phone(i % 8);
      lines.push(
        i % 2 === 0
          ? `{"id":${i},"name":"Zo\\u00eb ${i}","phone":"${p}","tags":["a", "b"]}`
          : `{ "phone" : ${p} , "note":"x,}\\"y" }`,
      );
    }
    lines.splice(5, 0, '', '{}');
    const inPath = join(dir, 'leads.jsonl');
    writeFileSync(inPath, `${lines.join('\r\n')}\r\n`);
    const small = await runBulk(options(inPath, 'small.jsonl', 2));
    const large = await runBulk(options(inPath, 'large.jsonl'));
    expect([small.completed, large.completed]).toEqual([true, true]);
    expect(small.rows).toBe(42);
    expect(small.blank).toBe(2);
    expect(small.ok).toBe(40);
    expect(small.extraColumns.length).toBeGreaterThan(0);
    const out = readFileSync(join(dir, 'small.jsonl'), 'utf8');
    expect(out).toBe(readFileSync(join(dir, 'large.jsonl'), 'utf8'));
    const written = out.split('\n');
    expect(written).toHaveLength(43);
    lines.forEach((line, i) => {
      const text = written[i] as string;
      const object = JSON.parse(text);
      const keys = Object.keys(object);
      expect(keys.at(-1)).toBe('status');
      if (line === '' || line === '{}') {
        expect(object.status).toMatch(/^invalid: blank row/);
        return;
      }
      expect(text.startsWith(line.slice(0, line.lastIndexOf('}')).trimEnd())).toBe(true);
      expect(object).toMatchObject(JSON.parse(line));
      expect(object.status).toMatch(/^ok \(\d+ fields not as documented\)$/);
      // The extra columns come after the documented ones, before status.
      for (const name of small.extraColumns) expect(keys.indexOf(name)).toBeGreaterThan(keys.indexOf('Zip'));
    });
  });
});

describe('rows that do not fit the header', () => {
  it("a long row's own fields follow status, the extra columns of answers go before it", async () => {
    const { dir } = at;
    const inPath = join(dir, 'leads.csv');
    const rows = ['name,phone'];
    for (let i = 0; i < 12; i++)
      rows.push(i === 4 ? `Long,${phone(i)},x,"y;z"` : i === 6 ? 'Short' : `N${i},${phone(i)}`);
    writeFileSync(inPath, `${rows.join('\n')}\n`);
    const summary = await runBulk(options(inPath, 'out.csv', 2));
    expect(summary.completed).toBe(true);
    expect(summary.extraColumns.length).toBeGreaterThan(0);
    const out = readFileSync(join(dir, 'out.csv'), 'utf8').split('\n');
    const header = (out[0] as string).split(',');
    expect(header.at(-1)).toBe('status');
    const long = out[5] as string;
    expect(long.startsWith(`Long,${phone(4)},`)).toBe(true);
    expect(long.endsWith(',x,y;z')).toBe(true); // its quotes were not needed
    const cells = long.split(',');
    expect(cells[header.length - 1]).toMatch(/^"invalid: the row has 4 fields but the header has 2/);
    expect(out[7]?.split(',')).toHaveLength(header.length);
    expect(out[7]?.startsWith('Short,,')).toBe(true);
  });
});
