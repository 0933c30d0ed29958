// How the command's own process collects garbage. Only the command's own process does this: the
// bulk engine, run inside another program (the VS Code extension host), leaves that program's heap
// as it is. The flags are set at run time: an installed command's shebang cannot portably pass flags
// to node. V8 reads all three at each garbage collection; an engine without them prints a warning and
// carries on.
//
// 1. No allocation-site pretenuring. V8 "pretenures" objects made at a place in the code whose first
// objects lived long: later objects from there are put straight into the old generation. A bulk run
// meets exactly that: at its start the rows' plans and requests are kept (the first thousands of
// distinct requests wait for answers), later ones from the same code are garbage within a row.
// Pretenured, they filled the old generation between collections: on a 1,000,000-row file the peak
// RSS was 150-160 MiB for a live heap of about 15 MiB, and the extra collections cost a fifth of the
// run's CPU time.
//
// 2. A young generation of 8 MiB (16 at worst). V8 doubles it (up to 32 MiB on 64-bit) while many
// objects survive a collection, which a bulk run's rows in flight make them do; most of what it
// then holds is garbage. Node's --max-semi-space-size would cap it, but only from the command line: at run
// time V8 reads the growth factor instead, so the factor is set to 1 (no growth) while the young
// generation is at the cap, and back to V8's default of 2 if V8 has shrunk it. On the
// 1,000,000-row file the peak RSS went from 128-149 MiB to 106-124 MiB. CPU time, in paired runs:
// the same on that file all cached and on 6,400 distinct requests, up to 7% more on the file's first
// run (the median of four pairs, within the machine's noise).
//
// 3. The old generation grows to twice what a full collection left (V8's --heap-growing-percent=100)
// before the next one. V8 alone picks that factor from 1.1 to 4 at each full collection, from how fast
// it collected against how fast the program promoted objects; a bulk run promotes its rows in flight
// steadily, and on a busy machine, where collecting is measured slower, V8 picked about 3 to 4. The peak
// RSS on the 1,000,000-row file then varied from run to run of the same build, 103-135 MiB, and
// 120-149 MiB on 20,000 distinct requests. With the factor fixed at 2: 97-102 MiB and 102-106 MiB,
// for two or three more full collections per run and the same collection time (their pauses and
// marking steps: about 100-115 ms either way on the 20,000 requests). CPU time, in paired runs (six
// pairs each): 1.01 on the 20,000 requests, 1.01 on the 1,000,000-row file all cached.
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
// callback comes a turn of the event loop after the collection, so when two collections come back
// to back (a scavenge, then the end of a full one) V8 can double it once more before the factor is
// 1: 16 MiB at worst, on a busy machine, still half of what V8 alone grows it to. (A 20 ms timer
// let it grow further.) The observer does not keep the process alive.
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
