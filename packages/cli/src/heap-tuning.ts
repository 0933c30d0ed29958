// How the command's own process collects garbage. V8 "pretenures" objects made at a place in the
// code whose first objects lived long: later objects from there are put straight into the old
// generation. A bulk run meets exactly that: at its start the rows' plans and requests are kept (the
// first thousands of distinct requests wait for answers), later ones from the same code are
// garbage within a row. Pretenured, they filled the old generation between collections: on a
// 1,000,000-row file the peak RSS was 150-160 MiB for a live heap of about 15 MiB, and the extra
// collections cost a fifth of the run's CPU time. Without pretenuring: 125-142 MiB over four
// benchmark runs (it varies with when V8 collects), and less CPU.
//
// A V8 flag set at run time: an installed command's shebang cannot portably pass flags to node.
// V8 reads this one at each garbage collection; an engine without it prints a warning and carries
// on. Only the command's own process does this: the bulk engine, run inside another program (the
// VS Code extension host), leaves that program's heap as it is.
import { setFlagsFromString } from 'node:v8';

export function tuneHeapForBulkRuns(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
