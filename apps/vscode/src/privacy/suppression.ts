// What the extension owes the people in the data (issue 38), at every paid call, chat tool and file
// run: the user's suppression list (suppression.json in the data folder every client of the user
// shares, ENRICH_DATA_DIR or the platform's: a person forgotten with `enrich forget` is refused here
// too), read again whenever it changes. A forgotten person is refused before the History is even
// offered: nothing sent, nothing kept. A list that cannot be read refuses every request, saying why.
// The History drops the entries of people on the list (it cannot know them before: the list holds
// hashes, so each entry's request is checked against it).
import { statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dataFolder, loadSuppression, type Refuse, retentionMs, suppressionPath } from '@enrich/bulk';
import { type CleanInput, type Operation, type SuppressionCheck, validate } from '@enrich/core';
import { type History, operationOf } from '../history';

export class Privacy {
  private list: { readonly mtimeMs: number; readonly check: SuppressionCheck } | undefined;

  constructor(readonly dataDir: string = dataFolder(process.env, process.platform, homedir())) {}

  /** Why this request must not be sent (a person forgotten, or a list that cannot be read), or undefined. */
  refusal(op: Operation, input: CleanInput): string | undefined {
    return this.refuse()?.(op, input);
  }

  /** What refuses requests now, for a file run; undefined when no one is forgotten. */
  refuse(): Refuse | undefined {
    let check: SuppressionCheck;
    try {
      check = this.current();
    } catch (error) {
      const why = `the suppression list could not be read (${(error as Error).message}), so no one can be told apart from the people forgotten`;
      return () => why;
    }
    return check.size === 0 ? undefined : (op, input) => check.refusal(op, input);
  }

  /** The shorter of `maxAgeMs` and the user's retention (1 to 365 days, 30 by default). */
  maxAge(maxAgeMs: number): number {
    try {
      return Math.min(maxAgeMs, retentionMs(this.dataDir));
    } catch {
      return maxAgeMs;
    }
  }

  /** Deletes the History entries of people on the list; returns how many. */
  async purgeHistory(history: History): Promise<number> {
    const refuse = this.refuse();
    if (!refuse) return 0;
    return history.removeWhere((entry) => {
      const op = operationOf(entry);
      const checked = validate(op, entry.input);
      return checked.ok && refuse(op, checked.input) !== undefined;
    });
  }

  private current(): SuppressionCheck {
    let mtimeMs = 0;
    try {
      mtimeMs = statSync(suppressionPath(this.dataDir)).mtimeMs;
    } catch {
      // No list yet: loadSuppression gives an empty one.
    }
    if (this.list === undefined || this.list.mtimeMs !== mtimeMs || mtimeMs === 0) {
      this.list = { mtimeMs, check: loadSuppression(this.dataDir) };
    }
    return this.list.check;
  }
}
