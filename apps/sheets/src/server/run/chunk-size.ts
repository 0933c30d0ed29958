// How many rows a chunk of a sidebar run takes. Each chunk is one Apps Script execution, and each
// pays about a second of its own before and after sending: finding the spreadsheet and the sheet,
// reading the rows, checking and writing the targets, saving the checkpoint (a Spreadsheet call is
// slow: the test runtime charges 160 ms, the slow side of what has been measured). Against a service
// paced by a rate, 250-row chunks spent a third of the run on that. So once the pace is known, a chunk takes
// about CHUNK_SECONDS of sending at that pace: fewer, larger chunks, progress still shown every
// quarter of a minute or so, and far inside the execution's 6 minutes.
import type { PaceState } from '@enrich/core/universal';

/** Rows of the first chunk (the pace not yet known), and the fewest of any chunk. */
export const FIRST_CHUNK_ROWS = 250;
/** The most rows a chunk takes, whatever the pace: what one read and one write hold comfortably. */
export const MAX_CHUNK_ROWS = 2000;
/** Seconds of sending a chunk aims at, at the pace found so far. */
const CHUNK_SECONDS = 15;

/** Rows for the next chunk, given what the pace learnt in the previous ones. */
export function chunkRows(pace: PaceState | undefined): number {
  const perSecond = pace ? answersPerSecond(pace) : undefined;
  if (perSecond === undefined) return FIRST_CHUNK_ROWS;
  const rows = Math.round(perSecond * CHUNK_SECONDS);
  return Math.max(FIRST_CHUNK_ROWS, Math.min(MAX_CHUNK_ROWS, rows));
}

/** Answers a second at this pace: its rate once it paces by one, else its limit over its latency. */
function answersPerSecond(pace: PaceState): number | undefined {
  if (pace.rate !== undefined) return pace.rate;
  if (pace.latency === undefined || pace.latency <= 0) return undefined;
  return pace.limit / (pace.latency / 1000);
}
