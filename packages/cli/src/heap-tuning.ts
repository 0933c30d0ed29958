// How the command's own process collects garbage. Only the command's own process does this: the
// bulk engine, run inside another program (the VS Code extension host), leaves that program's heap
// as it is. The flags are set at run time: an installed command's shebang cannot portably pass flags
// to node. V8 reads all three at each garbage collection; an engine without them prints a warning and
// carries on. What each one measured is in bench/README.md ("Heap tuning").
//
// 1. No allocation-site pretenuring. V8 puts objects made at a place in the code whose first objects
// lived long straight into the old generation. A bulk run's first rows wait for answers (they live
// long); later rows from the same code are garbage within a row, and pretenured they fill the old
// generation between collections.
//
// 2. A young generation capped at 8 MiB. V8 doubles it while many objects survive a collection, which
// a bulk run's rows in flight make them do, and most of what it then holds is garbage. Node's
// --max-semi-space-size would cap it only from the command line; at run time V8 reads the growth
// factor instead, so the factor is 1 (no growth) while the young generation is at the cap.
//
// 3. The old generation grows to twice what a full collection left before the next one. Left to V8,
// the factor follows how fast collecting is measured, which on a busy machine made the peak memory
// of the same run vary by a third from run to run.
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

/** The young generation (V8's new space: both semi-spaces) stops growing here (see capYoungGeneration). */
export const YOUNG_GENERATION_CAP_BYTES = 8 * 1024 * 1024;
/** The old generation may grow by this much of what a full collection left, before the next one. */
const OLD_GENERATION_GROWTH_PERCENT = 100;
const V8_DEFAULT_GROWTH_FACTOR = 2;

export function tuneHeapForBulkRuns(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
  setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  capYoungGeneration();
}

// Checked after every collection (V8 resizes the young generation only then). The observer's
// callback comes a turn of the event loop after the collection, so two collections back to back can
// double it once more before the factor is 1 (16 MiB at worst); a timer let it grow further. The
// observer does not keep the process alive.
function capYoungGeneration(): void {
  let growing = true;
  const check = () => {
    const mayGrow = youngGenerationBytes() < YOUNG_GENERATION_CAP_BYTES;
    if (mayGrow === growing) return;
    growing = mayGrow;
    setFlagsFromString(`--semi-space-growth-factor=${mayGrow ? V8_DEFAULT_GROWTH_FACTOR : 1}`);
  };
  new PerformanceObserver(check).observe({ entryTypes: ['gc'] });
}

export function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}
