// Recent calls, newest first, kept in a file of the extension's own (history-file.ts: written whole
// and crash-safe, so a call removed is gone from the disk) so they survive restarts, and capped by
// the `enrich.historySize` setting. Versions before kept them in globalState: moved to the file once,
// on activation (moveFrom). An entry holds the request with the key already redacted, and passes
// through the key scrubber: nothing here can leak it, even if the file is read. A paid answer keeps
// the body the service sent (capped at HISTORY_RAW_MAX_CHARS), so that a later version can read it
// again without paying. A History that cannot be written never loses a call's answer: the call goes
// on (its result stays open), and the problem is said once.
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
import type { HistoryFile } from './history-file';

/** Where versions before the History file kept it, in globalState; moved to the file on activation. */
export const HISTORY_STATE_KEY = 'enrich.history';
/** How much of an answer's body each entry keeps; the History is held in memory and rewritten whole. */
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
  private warned = false;

  constructor(
    private readonly file: HistoryFile,
    private readonly capacity: () => number,
    private readonly scrub: (text: string) => string = (text) => text,
    private readonly warn: (message: string) => void = () => {},
    /**
     * Whether the entry's person is forgotten (the suppression list): asked again as the entry is
     * written, under the file's lock, so a forget that came while its call was under way (it lists
     * the person before it rewrites this file) leaves nothing of them here.
     */
    private readonly forgotten: (entry: HistoryEntry) => boolean = () => false,
  ) {}

  /** Newest first; none when the file cannot be read (said once). */
  all(): readonly HistoryEntry[] {
    try {
      return this.file.read().filter(isEntry);
    } catch (error) {
      this.failed(error as Error);
      return [];
    }
  }

  get(id: string): HistoryEntry | undefined {
    return this.all().find((entry) => entry.id === id);
  }

  latest(): HistoryEntry | undefined {
    return this.all()[0];
  }

  /**
   * Adds a call; the request is redacted and the whole entry scrubbed here, whatever the caller
   * passed. A file that cannot be written is said, not thrown: the call was made and its answer shown.
   */
  async add(entry: HistoryEntry): Promise<void> {
    const redacted = {
      ...entry,
      request: redactRequest(entry.request),
      outcome: withCappedRaw(entry.outcome),
    };
    const safe = JSON.parse(this.scrub(JSON.stringify(redacted))) as HistoryEntry;
    try {
      await this.save((all) => (this.forgotten(safe) ? undefined : [safe, ...all]));
    } catch (error) {
      this.failed(error as Error);
    }
  }

  async delete(id: string): Promise<void> {
    await this.removeWhere((entry) => entry.id === id);
  }

  async clear(): Promise<void> {
    await this.save(() => []);
  }

  /** Deletes every entry `remove` picks (a person forgotten, an answer past the retention); returns how many. */
  async removeWhere(remove: (entry: HistoryEntry) => boolean): Promise<number> {
    let removed = 0;
    await this.save((all) => {
      const kept = all.filter((entry) => !remove(entry));
      removed = all.length - kept.length;
      return removed > 0 ? kept : undefined;
    });
    return removed;
  }

  /** Applies a smaller cap at once, after the setting changed. */
  async trim(): Promise<void> {
    try {
      await this.save((all) => (all.length > this.capacity() ? all : undefined));
    } catch (error) {
      this.failed(error as Error);
    }
  }

  /**
   * Moves a History that an earlier version kept in globalState into the file (once: the key is
   * cleared after), merged with what the file holds; returns how many entries it moved. A crash
   * between the two steps moves them again next time, and entries already there are not doubled.
   */
  async moveFrom(state: vscode.Memento): Promise<number> {
    const stored = state.get<unknown>(HISTORY_STATE_KEY);
    if (stored === undefined) return 0;
    const old = Array.isArray(stored) ? stored.filter(isEntry) : [];
    let moved = 0;
    try {
      await this.save((all) => {
        const have = new Set(all.map((entry) => entry.id));
        const added = old.filter((entry) => !have.has(entry.id));
        moved = added.length;
        return [...all, ...added].sort((a, b) => b.at - a.at);
      });
    } catch (error) {
      // The old History stays where it was, for the next activation to move.
      this.failed(error as Error);
      return 0;
    }
    await state.update(HISTORY_STATE_KEY, undefined);
    return moved;
  }

  /** Rewrites the file with `edit` of its entries (undefined: nothing changes), capped. */
  private async save(edit: (all: HistoryEntry[]) => HistoryEntry[] | undefined): Promise<void> {
    let edited = false;
    await this.file.change((stored) => {
      const next = edit(stored.filter(isEntry));
      edited = next !== undefined;
      return next?.slice(0, this.capacity());
    });
    if (edited) this.changed.fire();
  }

  private failed(error: Error): void {
    this.warn(`History ${this.file.path}: ${error.message}`);
    if (this.warned) return;
    this.warned = true;
    void vscode.window.showWarningMessage(
      `Enrichment could not use its History file (${error.message}). Calls go on; the History view may miss them.`,
    );
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

/**
 * A result's tab title: the operation and the time of the call, never the input. VS Code titles
 * the window with the active tab, and code-server's browser keeps page titles in its history and
 * session files, beyond the reach of Forget a Person; the input is in the result itself.
 */
export function resultTabTitle(entry: HistoryEntry): string {
  return `${operationOf(entry).title} ${new Date(entry.at).toTimeString().slice(0, 8)}`;
}

/** The input in a few words, for headings and tree labels: "5550102030", "Jane, Doe, 12 Main St". */
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
