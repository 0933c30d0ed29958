// What the server owes the people in the data (issue 38). The model gets no tool to forget anyone
// (a person decides that, with `enrich forget` or VS Code's Forget a Person); but every paid call and
// file run of the server checks the suppression lists first: the user's (suppression.json in the
// data folder, read again whenever it changes, so a forget done while the server runs counts at
// once) and the shared store's (read again every 30 s). A forgotten person is refused before the
// answer cache is even looked at: nothing sent, nothing kept. A list that cannot be read refuses
// every request (the server cannot tell who is forgotten), saying why.
// The answer cache follows the user's retention: answers older are not used, and the cache is
// compacted once when the server starts (bulk's keepCache).
import { statSync } from 'node:fs';
import {
  keepCache,
  loadSuppression,
  type Refuse,
  readSharedSuppression,
  retentionMs,
  suppressionPath,
} from '@enrich/bulk';
import { anyRefusal, requestOfKey, type SuppressionCheck } from '@enrich/core';

const SHARED_REFRESH_MS = 30_000;

export class Privacy {
  private local: { readonly mtimeMs: number; readonly check: SuppressionCheck } | undefined;
  private shared: { readonly at: number; readonly check: SuppressionCheck } | undefined;
  private kept = false;

  constructor(
    private readonly dataDir: string,
    private readonly storeUrl: string | undefined,
    private readonly log: (text: string) => void,
  ) {}

  /** The longest age of an answer the server may use: the shorter of `maxAgeMs` and the retention. */
  maxAge(maxAgeMs: number): number {
    try {
      return Math.min(maxAgeMs, retentionMs(this.dataDir));
    } catch (error) {
      this.log(`${(error as Error).message}; answers up to ${maxAgeMs / 86_400_000} days old are used`);
      return maxAgeMs;
    }
  }

  /** Once: the answer cache registered and compacted (older answers than the retention removed). */
  async keep(cachePath: string): Promise<void> {
    if (this.kept) return;
    this.kept = true;
    try {
      const kept = await keepCache(this.dataDir, cachePath);
      if (kept.pruned > 0)
        this.log(`${kept.pruned} answers older than the retention removed from ${cachePath}`);
      if (kept.problem) this.log(kept.problem);
    } catch (error) {
      this.log(`The answer cache could not be compacted: ${(error as Error).message}`);
    }
  }

  /** What refuses requests now (undefined: no one is forgotten). */
  async refuse(): Promise<Refuse | undefined> {
    let lists: SuppressionCheck[];
    try {
      lists = [
        this.localList(),
        ...(this.storeUrl === undefined ? [] : [await this.sharedList(this.storeUrl)]),
      ];
    } catch (error) {
      const why = `the suppression list could not be read (${(error as Error).message}), so no one can be told apart from the people forgotten`;
      return () => why;
    }
    if (lists.every((list) => list.size === 0)) return undefined;
    return (op, input) => anyRefusal(lists, op, input);
  }

  /**
   * Why the person a kept answer's request key holds is forgotten, or undefined: the user's list
   * read again if it changed, and the shared store's as last read (its own writes check it too).
   */
  forgottenKey(key: string): string | undefined {
    const request = requestOfKey(key);
    if (request === undefined) return undefined;
    try {
      return anyRefusal([this.localList(), this.shared?.check], request.op, request.input);
    } catch (error) {
      return `the suppression list could not be read (${(error as Error).message})`;
    }
  }

  private localList(): SuppressionCheck {
    let mtimeMs = 0;
    try {
      mtimeMs = statSync(suppressionPath(this.dataDir)).mtimeMs;
    } catch {
      // No list yet: loadSuppression gives an empty one.
    }
    if (this.local?.mtimeMs !== mtimeMs || mtimeMs === 0)
      this.local = { mtimeMs, check: loadSuppression(this.dataDir) };
    return this.local.check;
  }

  private async sharedList(url: string): Promise<SuppressionCheck> {
    if (this.shared && Date.now() - this.shared.at < SHARED_REFRESH_MS) return this.shared.check;
    this.shared = { at: Date.now(), check: await readSharedSuppression(url) };
    return this.shared.check;
  }
}
