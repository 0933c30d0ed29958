// ScriptApp's installable triggers, as strict as Apps Script is with an editor add-on
// (shared/PLATFORMS.md; developers.google.com/workspace/add-ons/concepts/editor-triggers, and
// /apps-script/guides/triggers/installable, /apps-script/guides/services/quotas):
// - only an authorised execution of a user may create, list or delete triggers (not a custom
//   function, not AuthMode.NONE or LIMITED), and only with the script.scriptapp scope in the manifest;
// - a trigger runs as the user who created it, whoever else uses the document; a user sees and
//   deletes only their own triggers;
// - an add-on: time-driven at most once an hour; one trigger of each type per user per document;
//   20 triggers per user per script; the handler must be a top-level function of the script;
// - a trigger's execution has 6 minutes, and all of a user's trigger executions share a daily
//   runtime (90 minutes for consumer accounts): past it, a run is stopped where it is and later
//   ones that day do not run at all; the user is not told (record it yourself).
// Time-driven triggers fire once per period from their creation (Apps Script picks a time inside
// each period; a fixed one keeps runs repeatable).
import type { Execution } from './execution.js';

export const TRIGGER_SCOPE = 'https://www.googleapis.com/auth/script.scriptapp';
/** Total trigger runtime a day for a consumer account (6 hours for Workspace). */
export const TRIGGER_RUNTIME_PER_DAY_MS = 90 * 60_000;
export const QUOTA_MESSAGE = 'Service using too much computer time for one day';
const MAX_TRIGGERS_PER_USER = 20;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

export type TriggerType = 'CLOCK' | 'ON_CHANGE' | 'ON_EDIT' | 'ON_OPEN' | 'ON_FORM_SUBMIT';

export interface TriggerRecord {
  readonly id: string;
  /** The user who created it, and as whom it runs. */
  readonly user: string;
  readonly handler: string;
  readonly type: TriggerType;
  /** Add-on triggers belong to one document. */
  readonly documentId: string;
  readonly everyMs?: number;
  nextAt?: number;
  deleted: boolean;
}

/** One firing of a trigger: ran (ok or failed), or not run (the day's trigger runtime was used up). */
export interface TriggerRun {
  readonly id: string;
  readonly user: string;
  readonly handler: string;
  readonly at: number;
  readonly ms: number;
  readonly ran: boolean;
  readonly error: string | null;
}

export class TriggerStore {
  readonly triggers: TriggerRecord[] = [];
  readonly runs: TriggerRun[] = [];
  /** Trigger runtime used, per user, on the UTC day `day` (days since the epoch). */
  readonly used = new Map<string, { day: number; ms: number }>();
  quotaMs = TRIGGER_RUNTIME_PER_DAY_MS;
  private count = 0;

  newId(): string {
    this.count++;
    return String(8_000_000_000 + this.count * 7919);
  }

  live(): TriggerRecord[] {
    return this.triggers.filter((t) => !t.deleted);
  }

  /** Runtime left today for `user`'s triggers at `now`. */
  left(user: string, now: number): number {
    const used = this.used.get(user);
    return this.quotaMs - (used && used.day === Math.floor(now / DAY_MS) ? used.ms : 0);
  }

  spend(user: string, now: number, ms: number): void {
    const day = Math.floor(now / DAY_MS);
    const used = this.used.get(user);
    this.used.set(user, { day, ms: (used && used.day === day ? used.ms : 0) + ms });
  }
}

export interface ScriptAppHost {
  readonly store: TriggerStore;
  readonly documentId: string;
  readonly scopes: readonly string[];
  globalFunctions(): readonly string[];
}

const TYPE_WORD: Record<TriggerType, string> = {
  CLOCK: 'time-based',
  ON_CHANGE: 'change',
  ON_EDIT: 'edit',
  ON_OPEN: 'open',
  ON_FORM_SUBMIT: 'form submit',
};

export function createScriptApp(exec: Execution, host: ScriptAppHost) {
  const { store } = host;
  const fail = (message: string): never => {
    throw exec.realm.error(message);
  };
  const user = exec.user.email;
  const authorised = (what: string) => {
    exec.allow(`ScriptApp.${what}`, {});
    if (!host.scopes.includes(TRIGGER_SCOPE)) {
      fail(`You do not have permission to call ScriptApp.${what}. Required permissions: ${TRIGGER_SCOPE}`);
    }
    exec.enter(20);
  };
  const triggerObject = (record: TriggerRecord) => ({
    getUniqueId: () => record.id,
    getHandlerFunction: () => record.handler,
    getEventType: () => record.type,
    getTriggerSource: () => (record.type === 'CLOCK' ? 'CLOCK' : 'SPREADSHEETS'),
    getTriggerSourceId: () => (record.type === 'CLOCK' ? null : record.documentId),
  });
  const create = (handler: string, type: TriggerType, everyMs?: number) => {
    if (!host.globalFunctions().includes(handler)) fail(`Script function not found: ${handler}`);
    const mine = store.live().filter((t) => t.user === user);
    if (mine.some((t) => t.documentId === host.documentId && t.type === type)) {
      fail(
        `This add-on has created too many ${TYPE_WORD[type]} triggers in this document for this Google user account.`,
      );
    }
    if (mine.length >= MAX_TRIGGERS_PER_USER) {
      fail(
        'This script has too many triggers. Triggers must be deleted from the script before more can be added.',
      );
    }
    const now = exec.clock.now();
    const record: TriggerRecord = {
      id: store.newId(),
      user,
      handler,
      type,
      documentId: host.documentId,
      everyMs,
      nextAt: everyMs === undefined ? undefined : now + everyMs,
      deleted: false,
    };
    store.triggers.push(record);
    return triggerObject(record);
  };
  const clockBuilder = (handler: string) => {
    let everyMs: number | undefined;
    const self = {
      everyMinutes: (_n: number) =>
        fail('An add-on may not create a time-based trigger that runs more often than once an hour.'),
      everyHours: (n: number) => {
        if (!Number.isInteger(n) || n < 1) fail('Invalid argument: hours');
        everyMs = n * HOUR_MS;
        return self;
      },
      everyDays: (n: number) => {
        if (!Number.isInteger(n) || n < 1) fail('Invalid argument: days');
        everyMs = n * DAY_MS;
        return self;
      },
      create: () =>
        everyMs === undefined ? fail('The trigger has no schedule.') : create(handler, 'CLOCK', everyMs),
    };
    return self;
  };
  const spreadsheetBuilder = (handler: string, source: unknown) => {
    const id = typeof source === 'string' ? source : (source as { getId?: () => string } | null)?.getId?.();
    if (id !== host.documentId) fail('An add-on may only create triggers for the document it runs in.');
    const on = (type: TriggerType) => ({ create: () => create(handler, type) });
    return {
      onChange: () => on('ON_CHANGE'),
      onEdit: () => on('ON_EDIT'),
      onOpen: () => on('ON_OPEN'),
      onFormSubmit: () => on('ON_FORM_SUBMIT'),
    };
  };
  const own = (source?: unknown) => {
    const id =
      source === undefined
        ? undefined
        : typeof source === 'string'
          ? source
          : (source as { getId?: () => string } | null)?.getId?.();
    return store
      .live()
      .filter((t) => t.user === user && (id === undefined || t.documentId === id))
      .map(triggerObject);
  };
  return {
    AuthMode: { NONE: 'NONE', LIMITED: 'LIMITED', FULL: 'FULL', CUSTOM_FUNCTION: 'CUSTOM_FUNCTION' },
    EventType: { CLOCK: 'CLOCK', ON_OPEN: 'ON_OPEN', ON_EDIT: 'ON_EDIT', ON_CHANGE: 'ON_CHANGE' },
    TriggerSource: { SPREADSHEETS: 'SPREADSHEETS', CLOCK: 'CLOCK' },
    newTrigger: (handler: string) => {
      authorised('newTrigger');
      return {
        timeBased: () => clockBuilder(String(handler)),
        forSpreadsheet: (source: unknown) => spreadsheetBuilder(String(handler), source),
      };
    },
    getProjectTriggers: () => {
      authorised('getProjectTriggers');
      return exec.realm.importValue(own());
    },
    getUserTriggers: (source: unknown) => {
      authorised('getUserTriggers');
      return exec.realm.importValue(own(source));
    },
    deleteTrigger: (trigger: unknown) => {
      authorised('deleteTrigger');
      const id = (trigger as { getUniqueId?: () => string } | null)?.getUniqueId?.();
      const record = store.live().find((t) => t.id === id);
      if (!record || record.user !== user) fail('No such trigger, or it belongs to another user.');
      (record as TriggerRecord).deleted = true;
    },
  };
}

/** The event object a time-driven trigger's function receives. */
export function clockEvent(id: string, at: number): Record<string, unknown> {
  const d = new Date(at);
  return {
    authMode: 'FULL',
    triggerUid: id,
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    'day-of-month': d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    timezone: 'UTC',
  };
}
