// The README's local start, as a new user runs it: scripts/local-start.sh (PostgreSQL in a temporary
// folder and two instances sharing it), then the README's own curl commands (BigQuery's and
// Snowflake's documented requests), taken from the README and run by bash with the ports the test
// chose. The second instance answers from the store what the first bought; Ctrl-C cleans up.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { testFolders } from '@enrich/bulk/test-folders';
import { describe, expect, it } from 'vitest';
import { sleep } from './helpers.js';

const ROOT = join(import.meta.dirname, '..');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === 'object' && address ? address.port : 0;
}

/** The sh blocks of the README's section `heading`, in order. */
function shBlocks(heading: string): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`## ${heading}`);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 3));
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

describe("the README's local start", () => {
  it('starts PostgreSQL and two instances; the README requests are answered, the second from the store', async () => {
    const [start, requests] = shBlocks('Try it on your machine');
    expect(start).toMatch(/^bash packages\/functions\/scripts\/local-start\.sh/);
    const ports = [await freePort(), await freePort()];
    const script = spawn('bash', [join(ROOT, 'scripts', 'local-start.sh')], {
      cwd: join(ROOT, '..', '..'),
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: process.env.HOME ?? '/tmp',
        // The instances' data folder (the suppression list, caches.jsonl) is the test file's, not the
        // user's; the script gives each instance its own cache folder and ledger.
        ...testFolders(),
        FUNCTIONS_PORTS: ports.join(' '),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let said = '';
    script.stdout.on('data', (chunk) => {
      said += String(chunk);
    });
    script.stderr.on('data', (chunk) => {
      said += String(chunk);
    });
    const ended = new Promise((resolve) => script.once('exit', resolve));
    try {
      while ((said.match(/listening on http:\/\/127\.0\.0\.1:\d+/g) ?? []).length < 2) {
        if (script.exitCode !== null) throw new Error(said);
        await sleep(50);
      }
      const token = /export TOKEN=(\S+)/.exec(said)?.[1] ?? '';
      const folder = /\(in (\S+), removed at the end\)/.exec(said)?.[1];
      const commands = (requests ?? '')
        .replaceAll(':8081', `:${ports[0]}`)
        .replaceAll(':8082', `:${ports[1]}`);
      const out = execFileSync('bash', ['-c', commands], {
        env: { ...process.env, TOKEN: token },
      }).toString();
      const [bigquery, snowflake] = out.split(/(?<=\})\s*(?=\{)/).map((text) => JSON.parse(text));
      expect(bigquery.replies.map((r: { status: string }) => r.status)).toEqual([
        'ok',
        'ok',
        expect.stringMatching(/^invalid: blank row/),
        expect.stringMatching(/^invalid: Phone must be 10 digits/),
      ]);
      expect(snowflake.data.map(([row, r]: [number, { status: string }]) => [row, r.status])).toEqual([
        [0, 'ok'],
        [1, 'ok'],
      ]);
      await sleep(100);
      expect(said).toMatch(/snowflake phone-lookup: 2 rows, 2 distinct; 2 from the store, 0 bought/);
      process.kill(-(script.pid as number), 'SIGINT');
      await ended;
      expect(folder && existsSync(folder)).toBe(false);
    } finally {
      if (script.exitCode === null) process.kill(-(script.pid as number), 'SIGKILL');
    }
  });
});
