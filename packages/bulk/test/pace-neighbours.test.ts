// Runs on one machine against one service and key hear each other end (pace-neighbours.ts): the
// files on a hand-set clock, then two real runs on one token bucket of the sandbox.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pace, type Transport } from '@enrich/core';
import { describe, expect, it, vi } from 'vitest';
import { runBulk } from '../src/run/run-bulk.js';
import { PaceMemory } from '../src/sending/pace-memory.js';
import { PACE_RUNS_FOLDER, PaceNeighbours } from '../src/sending/pace-neighbours.js';
import { useSandbox, writeCsv } from './fixtures.js';
import { phone, sandboxRun, sandboxTransport } from './sandbox-run.js';

/** Runs sharing one folder and one hand-set clock; what each heard. */
function neighbourhood(group = 'g1') {
  const folder = join(mkdtempSync(join(tmpdir(), 'pace-runs-')), PACE_RUNS_FOLDER);
  const clock = { now: 1_000_000 };
  const heard = new Map<PaceNeighbours, number[]>();
  const run = (inGroup = group) => {
    const shares: number[] = [];
    const neighbours = new PaceNeighbours(
      folder,
      inGroup,
      () => clock.now,
      (rate) => shares.push(rate),
    );
    heard.set(neighbours, shares);
    return neighbours;
  };
  return { folder, clock, run, heard: (n: PaceNeighbours) => heard.get(n) };
}

describe('the files runs keep', () => {
  it('a run that ends gives its rate to the one left; with two left, half each; once', () => {
    const { run, heard, clock } = neighbourhood();
    const [a, b, c] = [run(), run(), run()];
    for (const n of [a, b, c]) n.look();
    clock.now += 250;
    a.end(60);
    b.look();
    c.look();
    expect(heard(b)).toEqual([30]);
    expect(heard(c)).toEqual([30]);
    clock.now += 250;
    b.look();
    c.end(40);
    b.look();
    expect(heard(b)).toEqual([30, 40]);
    b.end(100);
    expect(heard(a)).toEqual([]);
  });

  it('not heard: a run that ended before this one began, one of another service or key, one with no rate', () => {
    const { run, heard, clock } = neighbourhood();
    const early = run();
    early.look();
    early.end(50);
    const late = run();
    late.look();
    const other = run('g2');
    const unpaced = run();
    for (const n of [other, unpaced]) n.look();
    other.end(70);
    unpaced.end(undefined);
    clock.now += 250;
    late.look();
    expect(heard(late)).toEqual([]);
  });

  it('a run gone without ending (killed) is not counted among those left, and old files are removed', () => {
    const { run, heard, clock, folder } = neighbourhood();
    const [a, b, killed] = [run(), run(), run()];
    for (const n of [a, b, killed]) n.look();
    clock.now += 5000;
    b.look();
    a.end(60);
    b.look();
    // The killed run's file is 5 s old: gone, not sharing.
    expect(heard(b)).toEqual([60]);
    clock.now += 11_000;
    b.look();
    expect(readdirSync(folder).sort()).toEqual([expect.stringMatching(/^g1\.[0-9a-f-]+\.json$/)]);
    expect(JSON.parse(readFileSync(join(folder, readdirSync(folder)[0] as string), 'utf8'))).toMatchObject({
      state: 'running',
    });
  });

  it('a file that is not a run (half written, not JSON, another shape) is passed over', () => {
    const { run, heard, clock, folder } = neighbourhood();
    const [a, b] = [run(), run()];
    a.look();
    b.look();
    writeFileSync(join(folder, 'g1.x.json'), '{"state":"ended","at":');
    writeFileSync(
      join(folder, 'g1.y.json'),
      JSON.stringify({ state: 'ended', at: clock.now, ratePerSecond: -3 }),
    );
    writeFileSync(join(folder, 'g1.z.json'), JSON.stringify({ state: 'gone', at: clock.now }));
    clock.now += 250;
    a.end(20);
    b.look();
    expect(heard(b)).toEqual([20]);
  });

  it('a folder that cannot be written is a run without neighbours, and fails nothing', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pace-runs-')), 'a-file');
    writeFileSync(file, '');
    // The cache folder is a file: no pace kept, no group's salt, and no error.
    const memory = new PaceMemory(join(file, 'pace.json'));
    memory.remember('sandbox', 'k', { concurrency: 8, baselineMs: 100, climbing: false });
    expect(memory.group('sandbox', 'k')).toMatch(/^[0-9a-f]{32}$/);
    const n = new PaceNeighbours(
      join(file, PACE_RUNS_FOLDER),
      'g1',
      () => 0,
      () => {
        throw new Error('heard something');
      },
    );
    n.look();
    n.end(10);
  });

  it('runs against one service and key share a group name; another key another; the key is not in it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'pace-runs-'));
    const one = new PaceMemory(join(dir, 'pace.json'));
    const two = new PaceMemory(join(dir, 'pace.json'));
    const group = one.group('sandbox', 'key-one-secret');
    expect(two.group('sandbox', 'key-one-secret')).toBe(group);
    expect(one.group('sandbox', 'key-two-secret')).not.toBe(group);
    expect(one.group('https://api.example', 'key-one-secret')).not.toBe(group);
    expect(group).not.toContain('secret');
    expect(readFileSync(join(dir, 'pace.json'), 'utf8')).not.toContain('secret');
  });
});

describe('two runs on one token bucket, one cache folder', () => {
  const at = useSandbox();
  vi.setConfig({ testTimeout: 90_000 });

  it('the run left takes up the rate of the one that ended, and says so', async () => {
    const { dir, server } = at;
    server.sandbox.configure({ rate: 50, latencyMs: 200 });
    const pacePath = join(dir, 'cache', 'pace.json');
    // What happened, in order, taken where it happens: progress readings are samples, and on a busy
    // machine the next change (a 429 at the faster rate) can come before the next one is taken.
    const events: (
      | { longStartsAfter: number; ms: number }
      | { ended: number | undefined; ms: number }
      | { before?: number; after?: number; says: string; ms: number }
    )[] = [];
    const started = Date.now();
    const end = PaceNeighbours.prototype.end;
    const endedRuns = new Set<PaceNeighbours>();
    const heard = Pace.prototype.neighbourEnded;
    vi.spyOn(PaceNeighbours.prototype, 'end').mockImplementation(function (this: PaceNeighbours, rate) {
      // A run ends its file once (after its last answer, and again, idle, when it finishes).
      if (!endedRuns.has(this)) events.push({ ended: rate, ms: Date.now() - started });
      endedRuns.add(this);
      end.call(this, rate);
    });
    vi.spyOn(Pace.prototype, 'neighbourEnded').mockImplementation(function (this: Pace, rate, now) {
      const before = this.ratePerSecond;
      heard.call(this, rate, now);
      events.push({
        before,
        after: this.ratePerSecond,
        says: this.reading(now).change,
        ms: Date.now() - started,
      });
    });
    /** A run of `rows` new phones; `answered` hears each answer's status, and holds the answer back
     * until the promise it returns, if any, settles. */
    const run = (name: string, from: number, rows: number, answered?: (status: number) => unknown) => {
      const inPath = join(dir, `${name}.csv`);
      writeCsv(inPath, [['phone'], ...Array.from({ length: rows }, (_, i) => [phone(from + i)])]);
      const options = sandboxRun(server, { inPath, outPath: join(dir, `${name}.out.csv`) }, { pacePath });
      const transport = (): Transport => {
        const send = sandboxTransport();
        return async (request) => {
          const response = await send(request);
          await answered?.(response.status);
          return response;
        };
      };
      return runBulk({ ...options, transport, cachePath: join(dir, `${name}.cache`), concurrency: 'auto' });
    };
    try {
      // The short run starts alone and the long one once the short has been refused (so it has a
      // rate to give) and has 80 of its 120 answers; the long one's answers past its 300th wait for
      // the short run to end. Started together and left to race, one run could take most of the
      // bucket and both end within a look of each other (CI, twice): then the long one heard nothing.
      let paid = 0;
      let refused = false;
      let longStarted = false;
      let startLong: () => void = () => undefined;
      const longMayStart = new Promise<void>((resolve) => {
        startLong = resolve;
      });
      const short = run('short', 0, 120, (status) => {
        if (status === 429) refused = true;
        if (status === 200) paid += 1;
        if (longStarted || !refused || paid < 80) return;
        longStarted = true;
        events.push({ longStartsAfter: paid, ms: Date.now() - started });
        startLong();
      });
      // Never refused, the short run ends alone, and the story says so.
      const shortDone = short.then(startLong, startLong);
      let longPaid = 0;
      const long = longMayStart.then(() =>
        run('long', 10_000, 400, (status) => {
          if (status === 200) longPaid += 1;
          return longPaid > 300 ? shortDone : undefined;
        }),
      );
      const [first, second] = await Promise.all([short, long]);
      expect(first.completed && second.completed).toBe(true);
    } finally {
      vi.restoreAllMocks();
    }
    // The short run ends first, at the rate the bucket's 429s gave it; the long one hears it once,
    // takes up all of it (no third run to share with) and says so; then it ends. The short one,
    // ended, hears nothing.
    const story = JSON.stringify(events);
    const [longStart, shortEnd, taken, longEnd, ...more] = events;
    expect(longStart, story).toMatchObject({ longStartsAfter: expect.any(Number) });
    const freed = shortEnd && 'ended' in shortEnd ? shortEnd.ended : undefined;
    expect(shortEnd, `the short run ended at a rate its 429s gave it: ${story}`).toMatchObject({
      ended: expect.any(Number),
    });
    expect(freed, story).toBeGreaterThan(0);
    expect(taken, story).toMatchObject({ says: 'neighbour-ended' });
    const { before = 0, after = 0 } = taken && 'says' in taken ? taken : {};
    expect(before, `the long run had a rate of its own: ${story}`).toBeGreaterThan(0);
    expect(after - before, story).toBeCloseTo(freed ?? 0, 6);
    expect(longEnd, story).toMatchObject({ ended: expect.any(Number) });
    expect(more, story).toEqual([]);
  });

  it('a fixed number neither hears nor is heard, and writes nothing beside the remembered pace', async () => {
    const { dir, server } = at;
    const folder = join(dir, 'fixed-cache');
    const inPath = join(dir, 'fixed.csv');
    writeCsv(inPath, [['phone'], ...Array.from({ length: 20 }, (_, i) => [phone(20_000 + i)])]);
    const options = sandboxRun(
      server,
      { inPath, outPath: join(dir, 'fixed.out.csv') },
      { pacePath: join(folder, 'pace.json') },
    );
    const summary = await runBulk({ ...options, concurrency: 4 });
    expect(summary.completed).toBe(true);
    expect(existsSync(folder)).toBe(false);
  });
});
