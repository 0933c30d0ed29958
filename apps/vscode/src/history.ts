// Recent calls, newest first, kept in the extension's globalState so they survive restarts, and
// capped by the `enrich.historySize` setting. An entry holds the request with the key already
// redacted, and passes through the key scrubber: nothing here can leak it, even if the storage file
// is read. A paid answer keeps the body the service sent (capped at HISTORY_RAW_MAX_CHARS), so that
// a later version can read it again without paying.
import {
  type CleanInput,
  capRaw,
  findOperation,
  type HttpRequest,
  isStoredOutcome,
  type Operation,
  type OperationId,
  type Outcome,
  redactRequest,
} from '@enrich/core';
import * as vscode from 'vscode';

export const HISTORY_STATE_KEY = 'enrich.history';
/** How much of an answer's body each entry keeps; globalState holds every entry in memory. */
export const HISTORY_RAW_MAX_CHARS = 65_536;

export interface HistoryEntry {
  readonly id: string;
  readonly operationId: OperationId;
  readonly input: CleanInput;
  /** When the call was sent, in epoch milliseconds. */
  readonly at: number;
  readonly durationMs: number;
  readonly attempts: number;
  readonly outcome: Outcome;
  /** Whether the answer cost a transaction (core's isPaid). */
  readonly paid: boolean;
  /** The request as sent, with the key replaced by core's redaction marker. */
  readonly request: HttpRequest;
  /**
   * Set when the service asked for a longer wait (Retry-After) than core waits for: epoch ms from
   * which it said it would answer again.
   */
  readonly resumeAt?: number;
}

export class History implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly state: vscode.Memento,
    private readonly capacity: () => number,
    private readonly scrub: (text: string) => string = (text) => text,
  ) {}

  /** Newest first. */
  all(): readonly HistoryEntry[] {
    const stored = this.state.get<unknown>(HISTORY_STATE_KEY, []);
    return Array.isArray(stored) ? stored.filter(isEntry) : [];
  }

  get(id: string): HistoryEntry | undefined {
    return this.all().find((entry) => entry.id === id);
  }

  latest(): HistoryEntry | undefined {
    return this.all()[0];
  }

  /** Adds a call; the request is redacted and the whole entry scrubbed here, whatever the caller passed. */
  async add(entry: HistoryEntry): Promise<void> {
    const redacted = {
      ...entry,
      request: redactRequest(entry.request),
      outcome: withCappedRaw(entry.outcome),
    };
    const safe = JSON.parse(this.scrub(JSON.stringify(redacted))) as HistoryEntry;
    await this.save([safe, ...this.all()]);
  }

  async delete(id: string): Promise<void> {
    await this.save(this.all().filter((entry) => entry.id !== id));
  }

  async clear(): Promise<void> {
    await this.save([]);
  }

  /** Deletes every entry `remove` picks (a person forgotten, an answer past the retention); returns how many. */
  async removeWhere(remove: (entry: HistoryEntry) => boolean): Promise<number> {
    const all = this.all();
    const kept = all.filter((entry) => !remove(entry));
    if (kept.length !== all.length) await this.save(kept);
    return all.length - kept.length;
  }

  /** Applies a smaller cap at once, after the setting changed. */
  async trim(): Promise<void> {
    const all = this.all();
    if (all.length > this.capacity()) await this.save(all);
  }

  private async save(entries: readonly HistoryEntry[]): Promise<void> {
    await this.state.update(HISTORY_STATE_KEY, entries.slice(0, this.capacity()));
    this.changed.fire();
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function withCappedRaw(outcome: Outcome): Outcome {
  if (outcome.kind !== 'record' && outcome.kind !== 'unreadable') return outcome;
  return { ...outcome, raw: capRaw(outcome.raw, HISTORY_RAW_MAX_CHARS) };
}

/**
 * Sent, and no answer came back (the deadline passed, the connection was lost, or the call was
 * cancelled on its way: core's `unanswered`): the service may have billed it. The spend ledger counts
 * it, as the bulk engine's budget keeps its place, and the History says so.
 */
export function mayHaveBeenPaid(entry: Pick<HistoryEntry, 'outcome'>): boolean {
  return entry.outcome.kind === 'error' && entry.outcome.error.code === 'unanswered';
}

/** "spent", "may have been spent" or "not spent": what the entry cost, in words. */
export function transactionWords(entry: HistoryEntry): string {
  if (entry.paid) return 'spent';
  return mayHaveBeenPaid(entry) ? 'may have been spent' : 'not spent';
}

/** "a transaction was spent", "a transaction may have been spent" or "no transaction was spent". */
export function spentSentence(entry: HistoryEntry): string {
  if (entry.paid) return 'a transaction was spent';
  return mayHaveBeenPaid(entry) ? 'a transaction may have been spent' : 'no transaction was spent';
}

export function operationOf(entry: HistoryEntry): Operation {
  const op = findOperation(entry.operationId);
  if (!op) throw new Error(`Unknown operation "${entry.operationId}"`);
  return op;
}

let sequence = 0;
/** Unique within this extension host, and ordered by time across restarts. */
export function newEntryId(now: number): string {
  sequence = (sequence + 1) % 1_000_000;
  return `${now.toString(36)}-${sequence.toString(36)}`;
}

/** The input in a few words, for titles and tree labels: "5550102030", "Jane, Doe, 12 Main St". */
export function inputSummary(input: CleanInput, maxLength = 48): string {
  const text = Object.values(input).join(', ');
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

// Stored state is read, not trusted: an entry of another shape is skipped.
function isEntry(value: unknown): value is HistoryEntry {
  if (value === null || typeof value !== 'object') return false;
  const entry = value as Partial<HistoryEntry>;
  return (
    typeof entry.id === 'string' &&
    typeof entry.operationId === 'string' &&
    findOperation(entry.operationId) !== undefined &&
    typeof entry.at === 'number' &&
    typeof entry.input === 'object' &&
    isStoredOutcome(entry.outcome) &&
    typeof entry.request === 'object'
  );
}
