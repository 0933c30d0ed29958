// "Enrichment: Forget a Person" (issue 38): a person's phone, e-mail, or name and street line; what
// every store of the user holds on them is counted first (the History, every answer cache a run
// wrote, the cache folder's), and once the person confirms, it is all removed and the person added
// to the suppression list that every client of the user reads (the enrich command, the MCP server,
// this extension), through the bulk engine's forgetEverywhere, as `enrich forget` does. The record of
// the request (no personal data) is the same file `enrich forget --log` prints.
import { homedir } from 'node:os';
import {
  cacheFolder,
  type ForgetReport,
  forgetEverywhere,
  type HeldAnswer,
  heldEverywhere,
  type PrivacyTargets,
  type StoreReport,
} from '@enrich/bulk';
import {
  describeIdentity,
  type Identity,
  type IdentityMatcher,
  readPersonText,
  requestKey,
  validate,
} from '@enrich/core';
import * as vscode from 'vscode';
import type { CommandFactory, Ctx } from '../ctx';
import { type HistoryEntry, operationOf } from '../history';

export const HISTORY_STORE = 'the History of VS Code';
const FORGET = 'Forget';

type Parsed = { readonly identities: readonly Identity[] } | { readonly problem: string };

/** "5550102030; jane.doe@example.com; Jane Doe, 12 Main St": each part a phone, an e-mail, or a name and street line. */
export function parsePerson(text: string): Parsed {
  const read = readPersonText(text);
  return read.ok ? { identities: read.identities } : { problem: read.message };
}

/** The History as one of the user's stores, for forgetEverywhere and heldEverywhere. */
function historyStore(ctx: Ctx): NonNullable<PrivacyTargets['more']> {
  const holds = (matcher: IdentityMatcher) => (entry: HistoryEntry) =>
    matcher.find(JSON.stringify(entry)) !== undefined;
  return {
    forget: async (matcher): Promise<StoreReport[]> => [await removeFromHistory(ctx, holds(matcher))],
    prune: async (oldest): Promise<StoreReport[]> => [
      await removeFromHistory(ctx, (entry) => entry.at < oldest),
    ],
    held: async (matcher): Promise<HeldAnswer[]> =>
      ctx.history
        .all()
        .filter(holds(matcher))
        .map((entry) => {
          const op = operationOf(entry);
          const checked = validate(op, entry.input);
          const key = checked.ok ? requestKey(op, checked.input) : `${op.id}:`;
          return {
            store: HISTORY_STORE,
            namespace: new URL(entry.request.url).origin,
            key,
            at: entry.at,
            outcome: entry.outcome,
          };
        }),
  };
}

/** The History file rewritten without the entries `remove` picks; a file that could not be is a failed store. */
async function removeFromHistory(ctx: Ctx, remove: (entry: HistoryEntry) => boolean): Promise<StoreReport> {
  try {
    return { store: HISTORY_STORE, removed: await ctx.history.removeWhere(remove) };
  } catch (error) {
    return { store: HISTORY_STORE, removed: 0, failed: (error as Error).message };
  }
}

export function privacyTargets(ctx: Ctx): PrivacyTargets {
  return {
    dataDir: ctx.privacy.dataDir,
    cacheDir: cacheFolder(process.env, process.platform, homedir()),
    more: historyStore(ctx),
  };
}

/** The command; `given` (the person as typed) skips the input box, for other callers and tests. */
export const forgetPerson: CommandFactory =
  (ctx) =>
  async (given?: string): Promise<ForgetReport | undefined> => {
    const text =
      given ??
      (await vscode.window.showInputBox({
        title: 'Enrichment: Forget a Person',
        prompt:
          'Their phone, e-mail, or name and street line; several separated by ";". Everything kept on them is removed, and their requests refused from now on.',
        placeHolder: '5550102030; jane.doe@example.com; Jane Doe, 12 Main St',
        ignoreFocusOut: true,
        validateInput: (value) => {
          const parsed = parsePerson(value);
          return 'problem' in parsed ? parsed.problem : undefined;
        },
      }));
    if (text === undefined) return undefined;
    const parsed = parsePerson(text);
    if ('problem' in parsed) {
      void vscode.window.showErrorMessage(`${parsed.problem}. Nothing was done.`);
      return undefined;
    }
    const targets = privacyTargets(ctx);
    const { held } = await heldEverywhere(targets, parsed.identities);
    const who = parsed.identities.map(describeIdentity).join('; ');
    const inHistory = held.filter((h) => h.store === HISTORY_STORE).length;
    const caches = new Set(held.filter((h) => h.store !== HISTORY_STORE).map((h) => h.store)).size;
    const answer = await vscode.window.showWarningMessage(
      `Forget ${who}?`,
      {
        modal: true,
        detail: `The History holds ${inHistory} call${inHistory === 1 ? '' : 's'} and ${caches} answer cache${caches === 1 ? '' : 's'} hold ${held.length - inHistory} answer${held.length - inHistory === 1 ? '' : 's'} on this person: they are deleted, and the person's requests refused from now on in VS Code, the enrich command and the MCP server. Undo is possible only today, with "enrich forget --undo" in a terminal. Your own files (inputs, outputs) are not changed.`,
      },
      FORGET,
    );
    if (answer !== FORGET) return undefined;
    const report = await forgetEverywhere(targets, parsed.identities);
    ctx.log.info(
      `Forget a Person: ${parsed.identities.length} identit${parsed.identities.length === 1 ? 'y' : 'ies'} forgotten on ${report.on} (UTC), ${report.suppressed.local} added to the suppression list`,
    );
    for (const store of report.stores) {
      ctx.log.info(
        `  ${store.store}: ${store.failed ? `NOT DONE: ${store.failed}` : store.missing ? 'not found' : `${store.removed} removed`}`,
      );
    }
    const removed = report.stores.reduce((sum, s) => sum + s.removed, 0);
    if (report.complete) {
      void vscode.window.showInformationMessage(
        `Forgotten: ${removed} kept answer${removed === 1 ? '' : 's'} removed (the History and ${report.stores.length - 1} answer cache${report.stores.length === 2 ? '' : 's'}); their requests are refused from now on.`,
      );
    } else {
      void vscode.window.showWarningMessage(
        `Forgotten in part: ${removed} answers removed, but some stores could not be changed (see the Enrichment log). Run Forget a Person again once they are free.`,
      );
    }
    return report;
  };
