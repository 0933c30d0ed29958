// What every command and view shares: settings, the key store, history, result documents, the spend
// ledger, the log and the status bar, created once on activation and disposed with the extension;
// and the type of a command (CommandFactory), as rust-analyzer's editors/code keeps its Cmd beside
// its Ctx. Features import this file; this file imports none of them (only the parts the context
// holds), so that no import cycle runs through it.
import { createScrubber } from '@enrich/core';
import * as vscode from 'vscode';
import { Purchases } from './call/purchase';
import { Config } from './config';
import { History, operationOf } from './history';
import { HistoryFile } from './history-file';
import { ApiKeyStore } from './key/store';
import { Log } from './log';
import { Privacy } from './privacy/suppression';
import { RESULT_SCHEME, ResultDocuments } from './result/json-document';
import { ResultView } from './result/view';
import { SPEND_SCHEME, SpendDocument } from './spend/document';
import { SpendLedger } from './spend/ledger';
import { type KeyState, StatusBar } from './status-bar';
import { DEMO_KEY, Trial } from './trial/sandbox';

// VS Code passes a command whatever its caller gives: tree elements, ids, inputs.
// biome-ignore lint/suspicious/noExplicitAny: vscode.commands.registerCommand types its callback `(...args: any[]) => any`; each factory narrows its own arguments.
export type Handler = (...args: any[]) => unknown;
/** A command of the table (commands.ts): given the shared context, the handler VS Code calls. */
export type CommandFactory = (ctx: Ctx) => Handler;

export class Ctx {
  readonly config = new Config();
  readonly keys: ApiKeyStore;
  readonly history: History;
  readonly results: ResultDocuments;
  /** The result view for people; the JSON documents stay one click away. */
  readonly resultView: ResultView;
  readonly log = new Log();
  /** Every paid transaction of this extension, in its global storage. */
  readonly spend: SpendLedger;
  readonly status: StatusBar;
  /** This session's own sandbox ("Try Without a Key"), stopped with the extension. */
  readonly trial = new Trial();
  /** Every paid call, the palette's and the chat tools': one purchase path (call/purchase.ts). */
  readonly purchases: Purchases;
  /** The people forgotten at their request, and the retention (privacy/suppression.ts). */
  readonly privacy = new Privacy();
  private scrubber: (text: string) => string = (text) => text;

  private constructor(readonly extension: vscode.ExtensionContext) {
    this.keys = new ApiKeyStore(extension.secrets);
    const scrub = (text: string) => this.scrub(text);
    this.history = new History(
      new HistoryFile(extension.globalStorageUri.fsPath),
      () => this.config.historySize,
      scrub,
      (message) => this.log.warn(message),
      (entry) => this.privacy.refusal(operationOf(entry), entry.input) !== undefined,
    );
    this.results = new ResultDocuments(this.history, scrub);
    this.status = new StatusBar(this.config);
    this.resultView = new ResultView(this.results, scrub);
    this.spend = new SpendLedger(extension.globalStorageUri, this.log);
    this.purchases = new Purchases({
      config: this.config,
      history: this.history,
      spend: this.spend,
      log: this.log,
      privacy: this.privacy,
      apiKey: () => this.refresh(),
    });
    const spendDocument = new SpendDocument(this.spend);
    this.subscribe(
      this.trial,
      this.resultView,
      this.keys,
      this.history,
      this.spend,
      spendDocument,
      this.log,
      this.status,
      vscode.workspace.registerTextDocumentContentProvider(RESULT_SCHEME, this.results),
      vscode.workspace.registerTextDocumentContentProvider(SPEND_SCHEME, spendDocument),
      // A key set or cleared in another window shows here too.
      this.keys.onDidChange(() => void this.refresh()),
      this.config.onDidChange(() => {
        void this.refresh();
        void this.history.trim();
      }),
    );
  }

  static async create(extension: vscode.ExtensionContext): Promise<Ctx> {
    const ctx = new Ctx(extension);
    await ctx.refresh();
    // A History an earlier version kept in globalState moves to the History file, once.
    await ctx.history.moveFrom(extension.globalState);
    // People forgotten since the last session (with `enrich forget`) leave the History now.
    try {
      await ctx.privacy.purgeHistory(ctx.history);
    } catch (error) {
      ctx.log.warn(
        `The History could not be checked against the suppression list: ${(error as Error).message}`,
      );
    }
    return ctx;
  }

  subscribe(...disposables: vscode.Disposable[]): void {
    this.extension.subscriptions.push(...disposables);
  }

  /**
   * Core's scrubber for the current key: every string the extension writes (messages, history,
   * result documents, the log) passes through it, behind the rule that messages never hold the key.
   */
  scrub(text: string): string {
    return this.scrubber(text);
  }

  /**
   * Re-reads the key, then updates what depends on it. Returns the key calls use: the sandbox's
   * public demo key while trying without a key (the user's own key is neither used nor replaced).
   */
  async refresh(): Promise<string | undefined> {
    const key = await this.keys.get();
    this.scrubber = createScrubber(key ? [key] : []);
    this.log.mask(key);
    const state: KeyState = key === undefined ? 'none' : this.keys.sessionOnly ? 'session' : 'stored';
    this.status.update(state);
    return this.config.trialBase ? DEMO_KEY : key;
  }

  /**
   * The key calls would use now, as refresh() returns it, read without updating anything: for what
   * must be free of side effects (a chat tool's prepareInvocation).
   */
  async callKey(): Promise<string | undefined> {
    return this.config.trialBase ? DEMO_KEY : await this.keys.get();
  }
}
