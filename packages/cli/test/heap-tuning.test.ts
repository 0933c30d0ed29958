// The heap tuning of the command's process, in a child process of its own (V8 flags are per process).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { YOUNG_GENERATION_CAP_BYTES } from '../src/heap-tuning.js';

const MODULE = fileURLToPath(new URL('../src/heap-tuning.ts', import.meta.url));

// Allocates as a bulk run does (many objects that survive a collection or two, most soon garbage)
// for a second, and prints the largest young generation seen.
function largestYoungGeneration(tuned: boolean): number {
  const script = `
    const heap = await import(${JSON.stringify(MODULE)});
    if (${tuned}) heap.tuneHeapForBulkRuns();
    let largest = 0;
    let kept = [];
    const until = Date.now() + 1000;
    while (Date.now() < until) {
      for (let i = 0; i < 20000; i++) kept.push({ row: i, text: 'row ' + i });
      if (kept.length > 200000) kept = [];
      largest = Math.max(largest, heap.youngGenerationBytes());
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    process.stdout.write(String(largest));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return Number(out);
}

describe('heap tuning', () => {
  it('keeps the young generation at the cap, where V8 alone would grow it past', () => {
    expect(largestYoungGeneration(false)).toBeGreaterThan(YOUNG_GENERATION_CAP_BYTES);
    expect(largestYoungGeneration(true)).toBeLessThanOrEqual(YOUNG_GENERATION_CAP_BYTES);
  });
});
