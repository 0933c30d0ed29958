// One call, from a checked input to a shown result: progress that can be cancelled, core's
// callOperation over the fetch transport (with its retries; redirects are never followed), a
// history entry, the result document, and a message in words with the action that helps ("Set API
// Key" on 401, "Retry" on 5xx, "Ask again (spends 1 transaction)" on a paid answer that could not
// be read). Every message passes through the key scrubber.
import {
  type CleanInput,
  callOperation,
  checkApiKey,
  type ErrorCode,
  isPaid,
  type Operation,
  redactRequest,
} from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import * as vscode from 'vscode';
import type { Ctx } from './ctx';
import { type HistoryEntry, inputSummary, newEntryId, operationOf } from './history';
import { COMMAND } from './manifest';
import { showResult } from './result-view';
import { CONFIG_SECTION } from './settings-schema';

export const SET_API_KEY = 'Set API Key';
export const RETRY = 'Retry';
export const OPEN_SETTINGS = 'Open Settings';
export const ASK_AGAIN = 'Ask again (spends 1 transaction)';

/** Sends the call and records it; undefined when nothing was sent or the user cancelled. */
export async function sendCall(
  ctx: Ctx,
  op: Operation,
  input: CleanInput,
): Promise<HistoryEntry | undefined> {
  const apiKey = await ctx.refresh();
  if (!apiKey) {
    const action = await vscode.window.showWarningMessage(
      `${op.title}: no API key is set, so nothing was sent.`,
      SET_API_KEY,
    );
    if (action === SET_API_KEY) await vscode.commands.executeCommand(COMMAND.setApiKey);
    return undefined;
  }
  // A key with spaces, line breaks or invisible characters is a copy mistake: refused before any
  // request, by a message that does not show it.
  const keyProblem = checkApiKey(apiKey);
  if (keyProblem) {
    ctx.log.error(`${op.title}: ${keyProblem}`);
    const action = await vscode.window.showErrorMessage(
      ctx.scrub(`${op.title}: ${keyProblem} Nothing was sent.`),
      SET_API_KEY,
    );
    if (action === SET_API_KEY) await vscode.commands.executeCommand(COMMAND.setApiKey);
    return undefined;
  }
  const title = `${op.title}: ${inputSummary(input)}`;
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const onCancel = token.onCancellationRequested(() => abort.abort());
      try {
        const made = await makeCall(ctx, op, input, apiKey, {
          signal: abort.signal,
          isCancelled: () => token.isCancellationRequested,
          onRetry: (message) => progress.report({ message }),
        });
        if (made.kind === 'cancelled') {
          void vscode.window.showInformationMessage(`${op.title}: cancelled.`);
          return undefined;
        }
        if (made.kind === 'not-sent') {
          await offer(ctx, vscode.window.showErrorMessage(ctx.scrub(made.message), OPEN_SETTINGS), undefined);
          return undefined;
        }
        return made.entry;
      } finally {
        onCancel.dispose();
      }
    },
  );
}

export type Made =
  | { readonly kind: 'entry'; readonly entry: HistoryEntry }
  /** Nothing was sent: a base URL that is not allowed (the input was checked before). */
  | { readonly kind: 'not-sent'; readonly message: string }
  | { readonly kind: 'cancelled' };

/**
 * One call with a checked key and input, without asking anything: core's callOperation over the
 * fetch transport, logged, and recorded in the History. The palette's calls (under a progress
 * notification) and the chat tools (under the chat's cancellation) both go through here.
 */
export async function makeCall(
  ctx: Ctx,
  op: Operation,
  input: CleanInput,
  apiKey: string,
  control: {
    readonly signal: AbortSignal;
    readonly isCancelled: () => boolean;
    /** "retrying in 2 s (attempt 2)". */
    readonly onRetry?: (message: string) => void;
  },
): Promise<Made> {
  const bases = ctx.config.bases;
  const settings = { apiKey, baseUrl: bases.baseUrl, baseUrlV3: bases.baseUrlV3 };
  const started = Date.now();
  const report = await callOperation(op, input, {
    transport: createFetchTransport({ timeoutMs: ctx.config.requestTimeoutMs, signal: control.signal }),
    settings,
    now: Date.now,
    sleep: (ms) => sleep(ms, control.signal),
    isCancelled: control.isCancelled,
    onRetry: ({ attempt, delayMs, outcome }) => {
      const why = outcome.kind === 'error' ? outcome.error.message : '';
      ctx.log.warn(`${op.title}: attempt ${attempt} failed (${why}); retrying in ${delayMs} ms`);
      control.onRetry?.(`retrying in ${Math.ceil(delayMs / 1000)} s (attempt ${attempt + 1})`);
    },
  });
  if (control.isCancelled()) {
    ctx.log.info(`${op.title}: cancelled after ${Date.now() - started} ms`);
    return { kind: 'cancelled' };
  }
  if (!report.request) {
    const message = report.outcome.kind === 'error' ? report.outcome.error.message : 'Nothing was sent.';
    ctx.log.error(`${op.title}: ${message}`);
    return { kind: 'not-sent', message };
  }
  const entry: HistoryEntry = {
    ...(report.waitTooLong ? { resumeAt: report.waitTooLong.resumeAt } : {}),
    id: newEntryId(started),
    operationId: op.id,
    input,
    at: started,
    durationMs: Date.now() - started,
    attempts: report.attempts,
    outcome: report.outcome,
    billable: isPaid(report.outcome),
    request: redactRequest(report.request),
  };
  if (entry.billable) ctx.spend.recordCall(op, bases, entry.id);
  ctx.log.info(
    `${op.title} POST ${entry.request.url} -> ${statusText(entry)} in ${entry.durationMs} ms, ` +
      `${entry.attempts} attempt(s), transaction ${entry.billable ? 'spent' : 'not spent'}`,
  );
  if (report.waitTooLong) {
    ctx.log.warn(
      `${op.title}: the service asked to wait ${Math.round(report.waitTooLong.retryAfterMs / 1000)} s; ` +
        `not waited for. It said to try again after ${new Date(report.waitTooLong.resumeAt).toISOString()}`,
    );
  }
  await ctx.history.add(entry);
  return { kind: 'entry', entry };
}

/** Opens the result document and says what happened, offering the action that helps. */
export async function reportCall(ctx: Ctx, entry: HistoryEntry): Promise<void> {
  await showResult(ctx, entry);
  const op = operationOf(entry);
  const { outcome } = entry;
  const spent = entry.billable ? 'A transaction was spent.' : 'No transaction was spent.';
  switch (outcome.kind) {
    case 'record': {
      vscode.window.setStatusBarMessage(`${op.title}: ${statusText(entry)} in ${entry.durationMs} ms`, 5000);
      const count = outcome.mismatches?.length ?? 0;
      if (count > 0) {
        // Not awaited: a notification without actions resolves only when it is dismissed.
        void vscode.window.showWarningMessage(
          ctx.scrub(
            `${op.title}: the answer differs from the API description in ${count} field${count === 1 ? '' : 's'}; ` +
              'every field was kept and the result lists them.',
          ),
        );
      }
      return;
    }
    case 'no-match':
      await vscode.window.showInformationMessage(
        ctx.scrub(`${op.title}: no record matches ${inputSummary(entry.input)} (204). ${spent}`),
      );
      return;
    case 'unreadable': {
      // Paid for: never asked again on its own. Asking again is the user's choice, and it says the cost.
      const shown = vscode.window.showWarningMessage(
        ctx.scrub(
          `${op.title}: paid, unreadable. The service answered 200 (a transaction was spent), but ${outcome.reason}. ` +
            'What arrived is in the result and the History.',
        ),
        ASK_AGAIN,
      );
      await offer(ctx, shown, entry);
      return;
    }
    case 'error': {
      const action = ACTION_FOR[outcome.error.code];
      // A Retry-After longer than core waits for: not waited for, and the user is told when to try.
      const resume =
        entry.resumeAt === undefined
          ? ''
          : ` The service asks to wait until ${new Date(entry.resumeAt).toLocaleString()}; that was not waited for.`;
      const message = ctx.scrub(`${op.title}: ${outcome.error.message}${resume} ${spent}`);
      const shown = action
        ? vscode.window.showErrorMessage(message, action)
        : vscode.window.showErrorMessage(message);
      await offer(ctx, shown, entry);
    }
  }
}

export const ACTION_FOR: Partial<Record<ErrorCode, string>> = {
  unauthorized: SET_API_KEY,
  server: RETRY,
  network: RETRY,
  allowance: RETRY,
  config: OPEN_SETTINGS,
};

async function offer(ctx: Ctx, shown: Thenable<string | undefined>, entry: HistoryEntry | undefined) {
  const action = await shown;
  if (action) await performAction(ctx, action, entry);
}

/** Does what a message's or the result view's action button says. */
export async function performAction(
  ctx: Ctx,
  action: string,
  entry: HistoryEntry | undefined,
): Promise<void> {
  if (action === SET_API_KEY) await vscode.commands.executeCommand(COMMAND.setApiKey);
  if (action === OPEN_SETTINGS)
    await vscode.commands.executeCommand('workbench.action.openSettings', CONFIG_SECTION);
  if ((action === RETRY || action === ASK_AGAIN) && entry) {
    const again = await sendCall(ctx, operationOf(entry), entry.input);
    if (again) await reportCall(ctx, again);
  }
}

/** "200", "200 (2 not as documented)", "204 no match", "200 paid, unreadable", "401 error", "network error". */
export function statusText(entry: HistoryEntry): string {
  const { outcome } = entry;
  if (outcome.kind === 'record') {
    const count = outcome.mismatches?.length ?? 0;
    return count === 0 ? '200' : `200 (${count} not as documented)`;
  }
  if (outcome.kind === 'no-match') return '204 no match';
  if (outcome.kind === 'unreadable') return '200 paid, unreadable';
  return outcome.error.status !== undefined ? `${outcome.error.status} error` : `${outcome.error.code} error`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
