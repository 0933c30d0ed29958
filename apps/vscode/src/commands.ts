// The command table: every command of the extension, each a small factory that takes the shared
// Ctx and returns the handler VS Code calls. activate() registers them all in one loop.
import {
  API_KEY_ENV,
  type CleanInput,
  checkBaseUrl,
  isLoopback,
  OPERATIONS,
  type Operation,
  toCurl,
  validate,
} from '@enrich/core';
import { DEMO_KEY } from '@enrich/sandbox/demo-key';
import * as vscode from 'vscode';
import { reportCall, showResult } from './call/report';
import { askReuse, earlierAnswer } from './call/reuse';
import { sendCall } from './call/send';
import type { CommandFactory, Ctx } from './ctx';
import { enrichCsv } from './file-run/command';
import { type HistoryEntry, operationOf } from './history';
import { askInput } from './input/flow';
import { prefillFor, selectedText } from './input/selection';
import { clearApiKey, setApiKey } from './key/commands';
import { COMMAND, HISTORY_VIEW, operationCommandId } from './manifest';
import { forgetPerson } from './privacy/forget-command';
import { SPEND_URI } from './spend/document';
import { tryWithoutKey, useRealService } from './trial/commands';

/** Where `pnpm sandbox` listens unless told otherwise. */
export const DEFAULT_SANDBOX_URL = 'http://127.0.0.1:8787';
export const USE_DEMO_KEY = 'Use Demo Key';

export function createCommands(): Record<string, CommandFactory> {
  return {
    ...Object.fromEntries(OPERATIONS.map((op) => [operationCommandId(op), runOperation(op)])),
    [COMMAND.setApiKey]: setApiKey,
    [COMMAND.clearApiKey]: clearApiKey,
    [COMMAND.useSandbox]: useSandbox,
    [COMMAND.tryWithoutKey]: tryWithoutKey,
    [COMMAND.enrichCsv]: enrichCsv,
    [COMMAND.useRealService]: useRealService,
    [COMMAND.showHistory]: showHistory,
    [COMMAND.copyLastRequestAsCurl]: copyLastRequestAsCurl,
    [COMMAND.showSpend]: showSpend,
    [COMMAND.openResult]: openResult,
    [COMMAND.rerun]: rerun,
    [COMMAND.copyAsCurl]: copyAsCurl,
    [COMMAND.deleteEntry]: deleteEntry,
    [COMMAND.clearHistory]: clearHistory,
    [COMMAND.forgetPerson]: forgetPerson,
  };
}

/**
 * Asks for the input (or takes one given by a caller), then either shows an answer the History
 * already holds for it (when the user chooses so: no transaction) or sends the call and shows its
 * result. Returns the history entry shown, or undefined when nothing was sent or shown.
 */
function runOperation(op: Operation): CommandFactory {
  return (ctx) =>
    async (given?: Record<string, unknown>): Promise<HistoryEntry | undefined> => {
      const input = given ? checked(op, given) : await askInput(op, prefillFor(op, selectedText()));
      if (!input) return undefined;
      // A person forgotten at their request: neither the History's answer nor a call (issue 38).
      const forgotten = ctx.privacy.refusal(op, input);
      if (forgotten) {
        void vscode.window.showErrorMessage(`${op.title}: not sent: ${forgotten}.`);
        return undefined;
      }
      const earlier = earlierAnswer(ctx, op, input);
      if (earlier) {
        const choice = await askReuse(op, input, earlier, Date.now());
        if (choice === undefined) return undefined;
        if (choice === 'show') {
          await showEarlier(ctx, earlier);
          return earlier;
        }
      }
      return callAndReport(ctx, op, input);
    };
}

async function callAndReport(ctx: Ctx, op: Operation, input: CleanInput): Promise<HistoryEntry | undefined> {
  const entry = await sendCall(ctx, op, input);
  if (entry) await reportCall(ctx, entry);
  return entry;
}

// Opens the entry's result document, as clicking its History item does. No History entry is added:
// the entry keeps the time it was paid for, so it stops being offered once older than the setting.
async function showEarlier(ctx: Ctx, entry: HistoryEntry): Promise<void> {
  const op = operationOf(entry);
  ctx.log.info(
    `${op.title}: showed the answer of ${new Date(entry.at).toISOString()} from the History; nothing sent, no transaction spent`,
  );
  await showResult(ctx, entry);
  vscode.window.setStatusBarMessage(`${op.title}: answer from the History, no transaction spent`, 5000);
}

function checked(op: Operation, given: Record<string, unknown>): CleanInput | undefined {
  const result = validate(op, given);
  if (result.ok) return result.input;
  void vscode.window.showErrorMessage(result.message);
  return undefined;
}

const useSandbox: CommandFactory = (ctx) => async () => {
  const url = await vscode.window.showInputBox({
    title: 'Enrichment: Use Sandbox',
    prompt: 'URL of a local sandbox (pnpm sandbox); both base URLs will point at it.',
    value: DEFAULT_SANDBOX_URL,
    ignoreFocusOut: true,
    validateInput: (text) => sandboxUrlProblem(text),
  });
  if (url === undefined) return;
  const base = checkBaseUrl('Sandbox URL', url);
  if (!base.ok) return;
  await ctx.config.useBaseUrl(base.base);
  await ctx.refresh();
  ctx.log.info(`Using the sandbox at ${base.base}`);
  const action = await vscode.window.showInformationMessage(
    `Calls now go to the sandbox at ${base.base}. Set the API key to the sandbox's demo key?`,
    USE_DEMO_KEY,
  );
  if (action === USE_DEMO_KEY) {
    await ctx.keys.set(DEMO_KEY);
    await ctx.refresh();
    ctx.log.info("API key set to the sandbox's demo key");
  }
};

export function sandboxUrlProblem(text: string): string | undefined {
  const base = checkBaseUrl('Sandbox URL', text);
  if (!base.ok) return base.message;
  const host = /^[a-z]+:\/\/(\[[^\]]*\]|[^/:?#]+)/i.exec(base.base)?.[1] ?? '';
  return isLoopback(host) ? undefined : 'A local sandbox runs on localhost or 127.0.0.1';
}

const showHistory: CommandFactory = () => async () => {
  await vscode.commands.executeCommand(`${HISTORY_VIEW}.focus`);
};

const showSpend: CommandFactory = () => async () => {
  const document = await vscode.workspace.openTextDocument(SPEND_URI);
  await vscode.window.showTextDocument(document, { preview: false });
};

const copyLastRequestAsCurl: CommandFactory = (ctx) => async () => {
  const entry = ctx.history.latest();
  if (!entry) {
    void vscode.window.showInformationMessage('No call yet: run an operation first.');
    return;
  }
  await copyCurl(entry);
};

/** Tree items and other callers may pass an entry, a tree element holding one, or an id. */
function entryFrom(ctx: Ctx, arg: unknown): HistoryEntry | undefined {
  if (typeof arg === 'string') return ctx.history.get(arg);
  if (arg && typeof arg === 'object' && 'id' in arg && typeof arg.id === 'string')
    return ctx.history.get(arg.id);
  return undefined;
}

const openResult: CommandFactory = (ctx) => async (arg: unknown) => {
  const entry = entryFrom(ctx, arg);
  if (entry) await showResult(ctx, entry);
};

// The user asked for a new call by name ("Re-run (spends 1 transaction)"), so no earlier answer is
// offered instead.
const rerun: CommandFactory = (ctx) => async (arg: unknown) => {
  const entry = entryFrom(ctx, arg);
  if (!entry) return undefined;
  const op = operationOf(entry);
  const input = checked(op, entry.input);
  return input ? callAndReport(ctx, op, input) : undefined;
};

const copyAsCurl: CommandFactory = (ctx) => async (arg: unknown) => {
  const entry = entryFrom(ctx, arg);
  if (entry) await copyCurl(entry);
};

const deleteEntry: CommandFactory = (ctx) => async (arg: unknown) => {
  const entry = entryFrom(ctx, arg);
  if (entry) await ctx.history.delete(entry.id);
};

const clearHistory: CommandFactory = (ctx) => async () => {
  const count = ctx.history.all().length;
  if (count === 0) return;
  const answer = await vscode.window.showWarningMessage(
    `Delete all ${count} calls from the history?`,
    { modal: true },
    'Clear History',
  );
  if (answer === 'Clear History') await ctx.history.clear();
};

/** The key is never in the command: it reads $ENRICH_API_KEY (core's toCurl). */
async function copyCurl(entry: HistoryEntry): Promise<void> {
  await vscode.env.clipboard.writeText(toCurl(entry.request));
  void vscode.window.showInformationMessage(
    `Copied a curl command for ${operationOf(entry).title}. It reads the key from $${API_KEY_ENV}.`,
  );
}
