// Installable triggers firing (triggers.ts holds the rules of creating them): time-driven ones as
// the virtual clock passes their times, change ones when a person changes the document. Each runs
// as the user who created it, with 6 minutes or what is left of that user's trigger runtime today,
// whichever is less; a run past the day's runtime is stopped where it is, and once it is used up no
// trigger of that user runs until the next UTC day. A failed run is recorded, never raised: Apps
// Script tells nobody (an add-on gets no failure e-mail).
import { EXECUTION_LIMIT_MS, TIMEOUT_MESSAGE } from './execution.js';
import type { Runtime } from './index.js';
import { clockEvent, QUOTA_MESSAGE, type TriggerRecord, type TriggerRun } from './triggers.js';
import { AppsScriptError, type User } from './types.js';

function userOf(rt: Runtime, email: string): User {
  return [rt.owner, rt.collaborator].find((u) => u.email === email) ?? { email };
}

function fire(rt: Runtime, trigger: TriggerRecord, event: Record<string, unknown>): TriggerRun {
  const store = rt.triggers;
  const at = rt.clock.now();
  const left = store.left(trigger.user, at);
  const base = { id: trigger.id, user: trigger.user, handler: trigger.handler, at };
  if (left <= 0) {
    const run = { ...base, ms: 0, ran: false, error: QUOTA_MESSAGE };
    store.runs.push(run);
    return run;
  }
  const limit = Math.min(EXECUTION_LIMIT_MS, left);
  let error: string | null = null;
  try {
    rt.runTrigger(
      userOf(rt, trigger.user),
      trigger.handler,
      event,
      limit,
      limit < EXECUTION_LIMIT_MS ? QUOTA_MESSAGE : TIMEOUT_MESSAGE,
      trigger.type === 'CLOCK' && !rt.timeTriggersHaveDocument,
    );
  } catch (failure) {
    if (!(failure instanceof AppsScriptError)) throw failure;
    error = failure.message;
  }
  const ms = rt.clock.now() - at;
  store.spend(trigger.user, at, ms);
  const run = { ...base, ms, ran: true, error };
  store.runs.push(run);
  return run;
}

/** Advances the clock by `ms`, firing each time-driven trigger as its times come, in time order. */
export function passTime(rt: Runtime, ms: number): TriggerRun[] {
  const end = rt.clock.now() + ms;
  const runs: TriggerRun[] = [];
  for (;;) {
    const due = rt.triggers
      .live()
      .filter((t) => t.type === 'CLOCK' && t.documentId === rt.spreadsheet.id && (t.nextAt ?? end + 1) <= end)
      .sort((a, b) => (a.nextAt as number) - (b.nextAt as number))[0];
    if (!due) break;
    const at = due.nextAt as number;
    if (at > rt.clock.now()) rt.clock.advance(at - rt.clock.now());
    // The next time is set before the run: a run that deletes its own trigger ends it.
    due.nextAt = at + (due.everyMs as number);
    runs.push(fire(rt, due, clockEvent(due.id, rt.clock.now())));
    // A run longer than the period does not make the next one start early.
    while ((due.nextAt as number) <= rt.clock.now())
      due.nextAt = (due.nextAt as number) + (due.everyMs as number);
  }
  if (end > rt.clock.now()) rt.clock.advance(end - rt.clock.now());
  return runs;
}

/** A person changed the document: every installable change trigger of it runs, as its creator. */
export function fireChange(rt: Runtime, changeType: string): TriggerRun[] {
  return rt.triggers
    .live()
    .filter((t) => t.type === 'ON_CHANGE' && t.documentId === rt.spreadsheet.id)
    .map((t) => fire(rt, t, { authMode: 'FULL', triggerUid: t.id, changeType }));
}
