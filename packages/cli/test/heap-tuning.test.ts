// The heap tuning of the command's process, in a child process of its own (V8 flags are per process).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { YOUNG_GENERATION_CAP_BYTES } from '../src/heap-tuning.js';

const MODULE = fileURLToPath(new URL('../src/heap-tuning.ts', import.meta.url));

// Allocates as a bulk run does (in small steps, between which the event loop turns; many objects
// survive a collection or two, most are soon garbage), and prints the largest young generation seen.
function largestYoungGeneration(tuned: boolean): number {
  const script = `
    const heap = await import(${JSON.stringify(MODULE)});
    if (${tuned}) heap.tuneHeapForBulkRuns();
    let largest = 0;
    let kept = [];
    for (let step = 0; step < 3000; step++) {
      for (let i = 0; i < 2000; i++) kept.push({ row: i, text: 'row ' + i });
      if (kept.length > 200000) kept = [];
      largest = Math.max(largest, heap.youngGenerationBytes());
      await new Promise((resolve) => setImmediate(resolve));
    }
    process.stdout.write(String(largest));
  `;
  return Number(childOutput(script));
}

// Keeps about 40 MiB of small objects alive and churns through rows that live long enough to be
// promoted, then die (as a run's rows in flight do); prints the largest old generation seen over its
// live size (measured after a full collection at the end).
function oldGenerationOverLive(tuned: boolean): number {
  const script = `
    const heap = await import(${JSON.stringify(MODULE)});
    const { getHeapSpaceStatistics } = await import('node:v8');
    if (${tuned}) heap.tuneHeapForBulkRuns();
    const oldUsed = () =>
      getHeapSpaceStatistics().reduce((sum, s) => (s.space_name === 'new_space' ? sum : sum + s.space_used_size), 0);
    const live = [];
    for (let i = 0; i < 400000; i++) live.push({ i, text: 'live ' + i });
    const inFlight = new Array(100000);
    globalThis.keptToTheEnd = [live, inFlight];
    let largest = 0;
    let k = 0;
    for (let step = 0; step < 3000; step++) {
      for (let i = 0; i < 2000; i++) inFlight[k++ % inFlight.length] = { row: k, text: 'row ' + k };
      largest = Math.max(largest, oldUsed());
      await new Promise((resolve) => setImmediate(resolve));
    }
    globalThis.gc();
    process.stdout.write(String(largest / oldUsed()));
  `;
  return Number(childOutput(script, ['--expose-gc']));
}

/** Runs an ES module script in a node process of its own and returns what it printed. */
function childOutput(script: string, nodeFlags: string[] = []): string {
  return execFileSync(
    process.execPath,
    [...nodeFlags, '--import', 'tsx', '--input-type=module', '-e', script],
    {
      encoding: 'utf8',
    },
  );
}

// Each test runs two child processes that allocate for a few seconds: on a busy machine, more than
// vitest's default 5 s.
const CHILDREN_MS = 60_000;

describe('heap tuning', () => {
  it(
    'stops the young generation at the cap (at worst one doubling past it), where V8 alone grows it further',
    () => {
      const alone = largestYoungGeneration(false);
      const tuned = largestYoungGeneration(true);
      expect(alone, `V8 alone: ${alone}`).toBeGreaterThan(2 * YOUNG_GENERATION_CAP_BYTES);
      expect(tuned, `tuned: ${tuned}`).toBeLessThanOrEqual(2 * YOUNG_GENERATION_CAP_BYTES);
    },
    CHILDREN_MS,
  );

  it(
    'lets the old generation grow to about twice its live size between full collections, where V8 alone lets it pass three times',
    () => {
      const alone = oldGenerationOverLive(false);
      const tuned = oldGenerationOverLive(true);
      expect(alone, `V8 alone: ${alone}`).toBeGreaterThan(3);
      expect(tuned, `tuned: ${tuned}`).toBeLessThan(2.6);
    },
    CHILDREN_MS,
  );
});
