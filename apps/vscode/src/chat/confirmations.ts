// What each chat tool's confirmation showed, remembered until its call comes. VS Code calls
// prepareInvocation (the confirmation the person answers) and then invoke with the same input, and
// nothing else ties the two together; so prepareInvocation remembers the plan it showed under the
// input, and invoke takes it back and does that, or nothing. The latest one shown for an input is
// taken first: a confirmation the person declined is never followed by invoke, and stays behind
// (the oldest are forgotten past MAX_REMEMBERED). Each carries a number, for the log.
import type { Plan } from './plan';

export interface Shown {
  /** This confirmation's number in the session, as the log names it. */
  readonly id: number;
  readonly plan: Plan;
}

/** Confirmations kept while waiting for their call; a declined one is never taken. */
export const MAX_REMEMBERED = 64;

export class Confirmations {
  private readonly shown: { readonly key: string; readonly confirmation: Shown }[] = [];
  private count = 0;

  /** Remembers what the confirmation for this input showed. */
  remember(given: unknown, plan: Plan): Shown {
    const confirmation = { id: ++this.count, plan };
    this.shown.push({ key: inputKey(given), confirmation });
    if (this.shown.length > MAX_REMEMBERED) this.shown.shift();
    return confirmation;
  }

  /** What the latest confirmation for this input showed, now taken; undefined if none was shown. */
  take(given: unknown): Shown | undefined {
    const key = inputKey(given);
    for (let i = this.shown.length - 1; i >= 0; i--) {
      if (this.shown[i]?.key !== key) continue;
      return this.shown.splice(i, 1)[0]?.confirmation;
    }
    return undefined;
  }
}

/** The input as the model gave it, its keys in order: the same input gives the same text. */
function inputKey(given: unknown): string {
  return JSON.stringify(given, (_name, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}
