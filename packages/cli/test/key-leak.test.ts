// Must-show 3 of issue 8: a distinctive key pushed through every failure path (each misbehaviour of
// the sandbox, its echo-key among them, a service that echoes the key back in bodies and headers,
// network errors, a key with a line break), in bulk runs, one-off calls and check-key; then every
// file written and everything printed is scanned for it, in every form (as is, JSON-escaped,
// URL-encoded, each line of it).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MISBEHAVE_MODES, type SandboxServer } from '@enrich/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { phone, type Ran, runCli, startServer, tempDir, writeCsv } from './helpers.js';
import { type Hostile, phoneRecord, startHostile } from './hostile-servers.js';

const KEY = 'LEAKCANARY-7f3a9c2e-d41b-4e8a';
const FORMS = [KEY, encodeURIComponent(KEY), JSON.stringify(KEY).slice(1, -1), 'LEAKCANARY'];

let sandbox: SandboxServer;
let echo: Hostile;
/** What one scenario wrote and printed: each scenario scans its own, so its verdict is its own. */
interface Trail {
  readonly dirs: string[];
  readonly printed: string[];
}
const all: Trail = { dirs: [], printed: [] };
let trail: Trail = { dirs: [], printed: [] };

// A service that puts the key it received everywhere it can: in a record, in an unknown field, in
// an HTML page, in an error body, in a redirect's Location.
function echoing(): Parameters<typeof startHostile>[0] {
  return (req, res, bill) => {
    const key = String(echo.seen.at(-1)?.headers['x-api-key'] ?? '');
    const phoneNo = (JSON.parse(req.body || '{}') as { Phone?: string }).Phone ?? '';
    const kind = Number(phoneNo.slice(-1)) % 5;
    if (kind === 0) {
      bill();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          ...phoneRecord(phoneNo),
          trace: key,
          Echo: { Key: key, Url: encodeURIComponent(key) },
        }),
      );
    } else if (kind === 1) {
      bill();
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html>your key ${key} is great</html>`);
    } else if (kind === 2) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`internal error for key ${key}`);
    } else if (kind === 3) {
      res.writeHead(307, { location: `http://127.0.0.1:9/steal?key=${encodeURIComponent(key)}` });
      res.end();
    } else {
      bill();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '5000' });
      res.write(`{"trace":"${key}","Name":`);
      setTimeout(() => res.destroy(), 20);
    }
  };
}

beforeAll(async () => {
  sandbox = await startServer({ keys: [KEY] });
  echo = await startHostile(echoing());
});
afterAll(async () => {
  await sandbox.close();
  await echo.close();
});

async function run(argv: string[], env: Record<string, string>, rows?: string[][]): Promise<Ran> {
  const dir = tempDir();
  trail.dirs.push(dir);
  all.dirs.push(dir);
  if (rows) writeCsv(join(dir, 'in.csv'), rows);
  const ran = await runCli(argv, { env, cwd: dir });
  trail.printed.push(ran.stdout, ran.stderr);
  all.printed.push(ran.stdout, ran.stderr);
  return ran;
}

/** Every file under `dir`. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Where the key shows, in any form, in what a scenario wrote or printed. */
function leaks(of: Trail): string[] {
  const hits: string[] = [];
  for (const path of of.dirs.flatMap(filesUnder)) {
    const text = readFileSync(path, 'latin1');
    for (const form of FORMS) if (text.includes(form)) hits.push(`${path}: ${form}`);
  }
  for (const text of of.printed)
    for (const form of FORMS) if (text.includes(form)) hits.push(`printed: ${form}: ${text.slice(0, 200)}`);
  return hits;
}

/** Starts a scenario's own trail; `expectNoLeak` then gives its verdict. */
function scenario(): Trail {
  trail = { dirs: [], printed: [] };
  return trail;
}

/** Whether the files a scenario wrote show the scrubber at work: the key came back, and was hidden. */
function showsHidden(of: Trail): boolean {
  return of.dirs.flatMap(filesUnder).some((path) => readFileSync(path, 'utf8').includes('[key hidden]'));
}

/** The verdict of one scenario: nothing it wrote or printed holds the key, and it did write. */
function expectNoLeak(of: Trail, minFiles: number): void {
  expect(of.dirs.flatMap(filesUnder).length).toBeGreaterThanOrEqual(minFiles);
  expect(leaks(of)).toEqual([]);
}

const envAt = (url: string, key = KEY) => ({
  ENRICH_API_KEY: key,
  ENRICH_BASE_URL: url,
  ENRICH_BASE_URL_V3: url,
});
const phones = [['phone'], ...Array.from({ length: 10 }, (_, i) => [phone(i)])];
const bulk = ['phone-lookup', '--in', 'in.csv', '--out', 'out.csv', '--quiet', '--max-attempts', '2'];

describe('the key never leaks', () => {
  it('through every misbehaviour of the sandbox', async () => {
    const mine = scenario();
    // Every mode the sandbox has, so a new one is scanned too; the two that only make the run wait
    // (a trickling body, a dated Retry-After) add time and no new path for the key. One of them,
    // echo-key, sends the key back in every answer (a header, and the body of records and errors).
    const slow = new Set(['trickle', 'retry-after-date']);
    const modes = MISBEHAVE_MODES.filter((m) => !slow.has(m));
    expect(modes).toContain('echo-key');
    for (const mode of modes) {
      sandbox.sandbox.configure({ misbehave: [mode] });
      await run(bulk, envAt(sandbox.url), phones);
      await run(['phone-lookup', '--Phone', phone(1), '--json'], envAt(sandbox.url));
      await run(['phone-lookup', '--Phone', phone(2), '--cache', 'c.jsonl'], envAt(sandbox.url));
    }
    sandbox.sandbox.configure({ misbehave: [] });
    // Each mode's bulk run writes at least its input and its output.
    expectNoLeak(mine, modes.length * 2);
    // The scan could have found it: the key came back (echo-key) into what the runs kept, and the
    // scrubber hid it there.
    expect(showsHidden(mine)).toBe(true);
    // Three commands for each mode: seconds in all, past vitest's default 5.
  }, 60_000);

  it('through a service that echoes the key in records, unknown fields, HTML, errors and redirects', async () => {
    const mine = scenario();
    const ran = await run(bulk, envAt(echo.url), phones);
    expect(echo.seen.length).toBeGreaterThan(0);
    expect(ran.code).not.toBe(1);
    for (let i = 0; i < 5; i++) {
      await run(['phone-lookup', '--Phone', phone(i), '--json', '--max-attempts', '1'], envAt(echo.url));
      await run(
        ['phone-lookup', '--Phone', phone(i), '--max-attempts', '1', '--cache', 'c.jsonl'],
        envAt(echo.url),
      );
    }
    await run(['check-key'], envAt(echo.url));
    await run(['check-key', '--json'], envAt(echo.url));
    expectNoLeak(mine, 5);
    // The scan could have found it: the service echoed the key into answers the scrubber cleaned.
    expect(showsHidden(mine)).toBe(true);
  });

  it('through network errors: nothing listening, and a wrong key', async () => {
    const mine = scenario();
    const closed = await startServer();
    const gone = closed.url;
    await closed.close();
    await run(bulk, envAt(gone), phones);
    await run(['phone-lookup', '--Phone', phone(1), '--max-attempts', '1'], envAt(gone));
    await run(['check-key'], envAt(gone));
    await run(bulk, envAt(sandbox.url, `${KEY}-wrong`), phones);
    expectNoLeak(mine, 4);
  });

  it('through a key pasted with a line break or a space: refused, not printed', async () => {
    const mine = scenario();
    for (const bad of [`${KEY}\n`, `${KEY}\nLEAKCANARY-second-line`, ` ${KEY}`, `${KEY}\u200b`]) {
      const ran = await run(bulk, envAt(sandbox.url, bad), phones);
      expect(ran.code).toBe(4);
      const one = await run(['phone-lookup', '--Phone', phone(1)], envAt(sandbox.url, bad));
      expect(one.code).toBe(4);
      await run(['check-key'], envAt(sandbox.url, bad));
    }
    expectNoLeak(mine, 4);
  });

  it('scan: nothing any scenario wrote or printed holds the key in any form', () => {
    expectNoLeak(all, 40);
    // And the scan could have found it: the service did receive the key.
    expect(echo.seen.some((s) => s.headers['x-api-key'] === KEY)).toBe(true);
    expect(all.printed.join('').length).toBeGreaterThan(1000);
  });
});
