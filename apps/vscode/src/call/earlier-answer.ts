// Answers already paid for, found in the History: the newest entry that answers the same request
// (core's requestKey of the operation and clean input, recomputed from each entry's stored input, so
// that entries written before this search existed match too), sent to the same URL (a sandbox answer
// never stands in for the real service's), younger than the setting. Only the paid answers (core's
// isPaid) that are not errors: records, no-matches and paid-but-unreadable answers. Read by the
// palette's reuse question (reuse.ts) and the purchase path (purchase.ts); it asks nothing.
import { type CleanInput, isPaid, type Operation, type Outcome, requestKey, validate } from '@enrich/core';
import { type HistoryEntry, operationOf } from '../history';

interface Request {
  readonly op: Operation;
  readonly input: CleanInput;
  /** Where it would be sent now (core's operationUrl). */
  readonly url: string;
}

/** The newest History entry that answers this request and is younger than maxAgeMs. */
export function findEarlierAnswer(
  entries: readonly HistoryEntry[],
  request: Request,
  now: number,
  maxAgeMs: number,
): HistoryEntry | undefined {
  if (maxAgeMs <= 0) return undefined;
  const key = requestKey(request.op, request.input);
  return entries.find(
    (entry) =>
      entry.operationId === request.op.id &&
      entry.request.url === request.url &&
      now - entry.at < maxAgeMs &&
      isReusable(entry.outcome) &&
      keyOf(entry) === key,
  );
}

function isReusable(outcome: Outcome): boolean {
  return outcome.kind !== 'error' && isPaid(outcome);
}

// Validated again, so that an entry whose input was stored before a change to core's normalisation
// (or edited by hand) is keyed as it would be sent today, or not at all.
function keyOf(entry: HistoryEntry): string | undefined {
  const op = operationOf(entry);
  const checked = validate(op, entry.input);
  return checked.ok ? requestKey(op, checked.input) : undefined;
}
