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
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  return Number(out);
}

describe('heap tuning', () => {
  it('stops the young generation at the cap (at worst one doubling past it), where V8 alone grows it further', () => {
    const alone = largestYoungGeneration(false);
    const tuned = largestYoungGeneration(true);
    expect(alone, `V8 alone: ${alone}`).toBeGreaterThan(2 * YOUNG_GENERATION_CAP_BYTES);
    expect(tuned, `tuned: ${tuned}`).toBeLessThanOrEqual(2 * YOUNG_GENERATION_CAP_BYTES);
  });
});
