// The people forgotten at their request (issue 38), checked before every row is bought: the team's
// list in the shared store (--store), and the service user's own list in its data folder
// (ENRICH_DATA_DIR, as every client's). Read again every 30 s, so a forget made by any client of
// the team counts within that time. A row of a forgotten person is answered `invalid: forgotten at
// the person's request on DATE; nothing was sent`: nothing sent, nothing kept. A list that cannot be
// read refuses every row, saying why (the server cannot tell who is forgotten).
import { homedir } from 'node:os';
import { dataFolder, loadSuppression, type Refuse, readSharedSuppression } from '@enrich/bulk';
import { anyRefusal, type SuppressionCheck } from '@enrich/core';

const REFRESH_MS = 30_000;

export class Suppression {
  private lists: { readonly at: number; readonly refuse: Refuse | undefined } | undefined;

  constructor(
    private readonly storeUrl: string | undefined,
    private readonly dataDir: string = dataFolder(process.env, process.platform, homedir()),
  ) {}

  /** What refuses rows now; undefined when no one is forgotten. */
  async refuse(): Promise<Refuse | undefined> {
    if (this.lists && Date.now() - this.lists.at < REFRESH_MS) return this.lists.refuse;
    let refuse: Refuse | undefined;
    try {
      const lists: SuppressionCheck[] = [loadSuppression(this.dataDir)];
      if (this.storeUrl !== undefined) lists.push(await readSharedSuppression(this.storeUrl));
      refuse = lists.some((list) => list.size > 0) ? (op, input) => anyRefusal(lists, op, input) : undefined;
    } catch (error) {
      const why = `the suppression list could not be read (${(error as Error).message}), so no one can be told apart from the people forgotten`;
      // Not kept: the next batch tries again.
      return () => why;
    }
    this.lists = { at: Date.now(), refuse };
    return refuse;
  }
}
