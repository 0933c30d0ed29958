// The Dockerfile, checked where no Docker daemon runs (as here, and in CI): its base is pinned to an
// exact Node 20 release, its user is not root, what it copies exists after the build and passes
// .dockerignore, and its steps done by hand (the files copied into an empty folder outside the
// repository, its ENV, its entrypoint run as a user that is not root) give a server that answers.
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bigQueryBody, post, TOKEN, tempDir } from './helpers.js';

const ROOT = join(import.meta.dirname, '..');

interface Instruction {
  readonly name: string;
  readonly args: string;
}

/** The instructions, continuation lines joined, comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [name = '', ...rest] = line.split(/\s+/);
      return { name: name.toUpperCase(), args: rest.join(' ') };
    });
}

/** A .dockerignore pattern as a regular expression over paths relative to the context. */
function patternRegex(pattern: string): RegExp {
  const source = pattern
    .replace(/^\/+/, '')
    .split('')
    .map((ch) => (ch === '*' ? '[^/]*' : ch === '?' ? '[^/]' : ch.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}(/.*)?$`);
}

/** The files the build context sends: every file, less what .dockerignore excludes (last match wins). */
function contextFiles(): string[] {
  const rules = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => ({ keep: line.startsWith('!'), regex: patternRegex(line.replace(/^!/, '')) }));
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (name === 'node_modules') continue;
      if (statSync(path).isDirectory()) walk(path);
      else files.push(relative(ROOT, path));
    }
  };
  walk(ROOT);
  return files.filter((file) => {
    let kept = true;
    for (const rule of rules) if (rule.regex.test(file)) kept = rule.keep;
    return kept;
  });
}

const steps = instructions(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const env = Object.fromEntries(
  steps
    .filter((s) => s.name === 'ENV')
    .flatMap((s) => [...s.args.matchAll(/([A-Z_]+)=(\S+)/g)].map((m) => [m[1] as string, m[2] as string])),
);

describe('the Dockerfile', () => {
  it('starts from an exact Node 20 release of a small image, and runs as a user that is not root', () => {
    const froms = steps.filter((s) => s.name === 'FROM');
    expect(froms).toHaveLength(1);
    expect(froms[0]?.args).toMatch(
      /^node:20\.\d+\.\d+-(bookworm-slim|alpine\d*(\.\d+)*)(@sha256:[0-9a-f]{64})?$/,
    );
    const users = steps.filter((s) => s.name === 'USER');
    expect(users.length).toBeGreaterThan(0);
    const user = users.at(-1)?.args ?? '';
    expect(user.split(':')[0]).not.toMatch(/^(root|0)$/);
    // The user is set before the process starts, and nothing runs as root after it.
    const userAt = steps.indexOf(users.at(-1) as Instruction);
    expect(steps.findIndex((s) => s.name === 'ENTRYPOINT')).toBeGreaterThan(userAt);
    expect(steps.slice(userAt).some((s) => s.name === 'RUN')).toBe(false);
    expect(steps.find((s) => s.name === 'EXPOSE')?.args).toBe(env.PORT);
  });

  it('copies only what exists after the build and passes .dockerignore: the bundle, no source, no maps', () => {
    const sent = contextFiles();
    expect(sent).toContain('dist/enrich-functions.mjs');
    expect(
      sent.some((file) => file.startsWith('src/') || file.startsWith('test/') || file.endsWith('.map')),
    ).toBe(false);
    for (const copy of steps.filter((s) => s.name === 'COPY')) {
      const sources = copy.args
        .split(/\s+/)
        .filter((a) => !a.startsWith('--'))
        .slice(0, -1);
      for (const source of sources) {
        const prefix = source.replace(/\/$/, '');
        expect(
          sent.some((file) => file === prefix || file.startsWith(`${prefix}/`)),
          source,
        ).toBe(true);
      }
    }
  });

  it('serves from a copy of its files alone, as its user, with its ENV and ENTRYPOINT', async () => {
    // WORKDIR /app, the COPY lines (into a folder outside the repository: no node_modules to find).
    const app = join(tempDir('enrich-functions-image-'), 'app');
    for (const file of contextFiles()) {
      mkdirSync(dirname(join(app, file)), { recursive: true });
      cpSync(join(ROOT, file), join(app, file));
    }
    chmodSync(dirname(app), 0o755);
    const home = tempDir('enrich-functions-nobody-');
    chmodSync(home, 0o777);
    const entry = JSON.parse(steps.find((s) => s.name === 'ENTRYPOINT')?.args ?? '[]') as string[];
    expect(entry.slice(0, 2)).toEqual(['node', '/app/dist/enrich-functions.mjs']);
    const child = spawn(process.execPath, [join(app, 'dist/enrich-functions.mjs'), '--sandbox'], {
      cwd: app,
      env: {
        ...env,
        PORT: '0',
        HOME: home,
        ENRICH_CACHE_DIR: join(home, 'cache'),
        ENRICH_FUNCTIONS_TOKEN: TOKEN,
      },
      // Not root, as USER says (nobody here: the machine may have no uid 1000).
      ...(process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let said = '';
    child.stdout.on('data', (chunk) => {
      said += String(chunk);
    });
    child.stderr.on('data', (chunk) => {
      said += String(chunk);
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setInterval(() => {
          const match = /listening on http:\/\/0\.0\.0\.0:(\d+)/.exec(said);
          if (match) {
            clearInterval(timer);
            resolve(`http://127.0.0.1:${match[1]}`);
          }
        }, 20);
        child.once('exit', (code) => {
          clearInterval(timer);
          reject(new Error(`exited ${code}: ${said}`));
        });
      });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const answer = await post(
        url,
        '/bigquery',
        bigQueryBody({ operation: 'phone-lookup' }, [['5550102030']]),
      );
      expect(answer.status).toBe(200);
      expect((answer.json.replies as { status: string }[])[0]?.status).toBe('ok');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
