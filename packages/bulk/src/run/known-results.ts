// The results a run knows without sending: of blank and invalid rows (one per reason: files repeat
// their mistakes too), and of requests answered earlier in this run or in the journal.
import type { Operation } from '@enrich/core';
import type { AnswerStore } from '../store/answer-store.js';
import { BoundedMap } from './bounded-map.js';
import type { PlannedRow } from './row-planner.js';
import { invalidResult, isUnreadable, type RowResult, resultOf } from './row-result.js';

export class KnownResults {
  private readonly answers: BoundedMap<string, RowResult>;
  private readonly invalidRows = new BoundedMap<string, RowResult>(1000);
  // Keys asked again this run for retryUnreadable: at most once each, whatever comes back.
  private readonly askedAgain = new Set<string>();
  private readonly retryUnreadable: boolean;

  constructor(
    private readonly op: Operation,
    private readonly columns: readonly string[],
    private readonly store: AnswerStore,
    options: { readonly memoryAnswers?: number | undefined; readonly retryUnreadable?: boolean | undefined },
  ) {
    this.answers = new BoundedMap<string, RowResult>(options.memoryAnswers ?? 20_000);
    this.retryUnreadable = options.retryUnreadable === true;
  }

  /** The result of a blank or invalid row. */
  invalid(planned: Exclude<PlannedRow, { kind: 'request' }>): RowResult {
    // A long row's result holds its own fields past the header: its own, not shared.
    if (planned.kind === 'invalid' && planned.trailing) {
      return { ...invalidResult(planned.message, this.columns), trailing: planned.trailing };
    }
    let result = this.invalidRows.get(planned.message);
    if (!result) {
      result = invalidResult(planned.message, this.columns, planned.kind === 'blank');
      this.invalidRows.set(planned.message, result);
    }
    return result;
  }

  /**
   * The answer already known for a request (this run's, or the journal's); undefined when it must
   * be asked (`pending`: the requests being asked). `askingAgain` is called when a paid-unreadable
   * answer is to be asked again (retryUnreadable). Called for every row: nothing is allocated or
   * looked up that a row answered from memory does not need.
   */
  answerFor(
    key: string,
    pending: ReadonlyMap<string, unknown>,
    askingAgain: () => void,
  ): RowResult | undefined {
    const remembered = this.answers.get(key);
    if (remembered) return remembered;
    const stored = this.store.get(key);
    if (!stored) return undefined;
    if (this.retryUnreadable && isUnreadable(stored) && !this.askedAgain.has(key) && !pending.has(key)) {
      this.askedAgain.add(key);
      askingAgain();
      return undefined;
    }
    if (this.askedAgain.has(key) && pending.has(key)) return undefined;
    return this.remember(key, resultOf(this.op, stored, this.columns));
  }

  remember(key: string, result: RowResult): RowResult {
    this.answers.set(key, result);
    return result;
  }
}
