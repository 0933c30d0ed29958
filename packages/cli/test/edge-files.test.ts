// Issue 27, items 1 and 4, over real HTTP to the sandbox: nothing on the wire is abandoned
// unjournaled when the input breaks off mid-file; a user's file is never replaced without asking;
// the input's BOM and line ends are kept in the output. Scenarios in edge-files.scenario.ts.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROKEN_AT, BROKEN_ROWS, EDGE_FILE_SCENARIOS } from './edge-files.scenario.js';
import { phone, runCli, sandboxEnv, startServer, tempDir } from './helpers.js';

const scenario = (id: string) => {
  const found = EDGE_FILE_SCENARIOS.find((s) => s.id === id);
  if (!found) throw new Error(id);
  return found.run();
};

describe('a CSV that breaks off mid-file', () => {
  it('stops sending at once, journals what was on the wire, says what it spent; mended, nothing is bought twice', async () => {
    const m = await scenario('broken-row-mid-file');
    // Every transaction the service counted is in the journal and in the summary, and the break was
    // found long before the 4,000 rows ahead of it were all sent.
    expect(m.counted).toBeGreaterThan(0);
    expect(m.journal).toBe(m.counted);
    expect(m.more.summaryTransactions).toBe(m.counted);
    expect(m.counted).toBeLessThan(BROKEN_AT / 2);
    expect(m.code).toBe(2);
    expect(m.stdout).toContain('"inputError"');
    expect(m.stdout).toMatch(new RegExp(`not a readable CSV: .*line ${BROKEN_AT}`));
    expect(m.statuses).toBeUndefined(); // the output is written only when every row is in it
    // The same command on the mended file buys each of the other phones once.
    expect(m.more.mendedCode).toBe(0);
    expect(m.more.totalCounted).toBe(BROKEN_ROWS);
  }, 60_000);

  it('says so in words: where it broke, what was spent, what to do', async () => {
    const server = await startServer({ latencyMs: 20 });
    try {
      const dir = tempDir();
      const lines = ['phone', phone(1), phone(2), '"5551000003', phone(4)];
      writeFileSync(join(dir, 'in.csv'), `${lines.join('\n')}\n`);
      const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--quiet'], {
        env: sandboxEnv(server),
        cwd: dir,
      });
      expect(ran.code).toBe(2);
      expect(ran.stdout).toMatch(/transactions spent +2\b/);
      expect(ran.stdout).toMatch(/stopped sending: .*in\.csv is not a readable CSV: .*mend the file/);
      expect(server.sandbox.transactions()).toBe(2);
    } finally {
      await server.close();
    }
  });
});

describe('--out names a file that is not ours', () => {
  for (const id of ['out-not-ours', 'out-read-only', 'out-is-journal']) {
    it(`${id}: refused before anything is sent, the file untouched`, async () => {
      const m = await scenario(id);
      expect(m.requests).toBe(0);
      expect(m.counted).toBe(0);
      expect(m.code).toBe(2);
      expect(m.more.outUnchanged).toBe('yes');
      expect(m.stderr).toMatch(/report\.csv .*(not an output of enrich|read-only).*Nothing was sent/);
    });
  }

  it('out-is-directory: refused before anything is sent, no stack trace, no .partial left', async () => {
    const m = await scenario('out-is-directory');
    expect([m.requests, m.counted, m.journal, m.code]).toEqual([0, 0, 0, 2]);
    expect(m.stderr).toMatch(/report\.csv is a directory.*Nothing was sent/);
    expect(m.stderr).not.toMatch(/EISDIR|\n\s+at /);
    expect(statSync(join(m.dir, 'report.csv')).isDirectory()).toBe(true);
  });

  it('--force replaces it; a rerun over our own output needs no --force', async () => {
    const server = await startServer();
    try {
      const dir = tempDir();
      const env = sandboxEnv(server);
      writeFileSync(join(dir, 'in.csv'), `phone\n${phone(1)}\n`);
      writeFileSync(join(dir, 'report.csv'), 'quarter,revenue\nQ1,100\n');
      const args = ['phone-lookup', '--in', 'in.csv', '--out', 'report.csv', '--quiet'];
      expect((await runCli(args, { env, cwd: dir })).code).toBe(2);
      expect((await runCli([...args, '--force'], { env, cwd: dir })).code).toBe(0);
      expect(readFileSync(join(dir, 'report.csv'), 'utf8')).toMatch(/^phone,/);
      // Ours now: the same command again replaces it without asking, and spends nothing.
      expect((await runCli(args, { env, cwd: dir })).code).toBe(0);
      expect(server.sandbox.transactions()).toBe(1);
    } finally {
      await server.close();
    }
  });
});

describe("the input's BOM and line ends", () => {
  it('excel-csv-utf8: the output keeps the BOM, the CRLF and every accent', async () => {
    const m = await scenario('excel-csv-utf8');
    expect(m.more).toEqual({ bom: 'kept', lineEnds: 'CRLF', names: 'unchanged' });
    expect([m.counted, m.journal, m.code]).toEqual([2, 2, 0]);
  });

  it('a CSV saved by Excel (BOM, CRLF) gives an output with a BOM and CRLF', async () => {
    const server = await startServer();
    try {
      const dir = tempDir();
      const text = `\uFEFFname,phone\r\nJosé Ñúñez,${phone(1)}\r\n"Zoë, Jr.",${phone(2)}\r\n`;
      writeFileSync(join(dir, 'in.csv'), text);
      const ran = await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
        env: sandboxEnv(server),
        cwd: dir,
      });
      expect(ran.code).toBe(0);
      const out = readFileSync(join(dir, 'out.csv'), 'utf8');
      expect(out.startsWith('\uFEFFname,phone,')).toBe(true);
      const lines = out.split('\r\n');
      expect(lines).toHaveLength(4); // header, two rows, and the empty string after the last CRLF
      expect(out.replace(/\r\n/g, '')).not.toContain('\n');
      expect(lines[1]?.startsWith(`José Ñúñez,${phone(1)},`)).toBe(true);
      expect(lines[2]?.startsWith(`"Zoë, Jr.",${phone(2)},`)).toBe(true);
    } finally {
      await server.close();
    }
  });

  it('a plain UTF-8 file with LF stays without a BOM, with LF', async () => {
    const server = await startServer();
    try {
      const dir = tempDir();
      writeFileSync(join(dir, 'in.csv'), `phone\n${phone(1)}\n`);
      await runCli(['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet'], {
        env: sandboxEnv(server),
        cwd: dir,
      });
      const out = readFileSync(join(dir, 'out.csv'), 'utf8');
      expect(out.startsWith('phone,')).toBe(true);
      expect(out).not.toContain('\r');
    } finally {
      await server.close();
    }
  });
});
