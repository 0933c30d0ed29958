// Sending one call, from a checked input to a History entry: progress that can be cancelled, core's
// callOperation over the fetch transport (with its retries; redirects are never followed), the log,
// the spend ledger and the History. What the user is told afterwards is report.ts. Every message
// passes through the key scrubber.
import {
  abortableSleep,
  type CleanInput,
  callOperation,
  checkApiKey,
  isPaid,
  type Operation,
  redactRequest,
} from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { type HistoryEntry, inputSummary, newEntryId } from '../history';
import { COMMAND } from '../manifest';
import { OPEN_SETTINGS, openSettings, SET_API_KEY } from './actions';
import { statusText } from './status-text';

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
          const action = await vscode.window.showErrorMessage(ctx.scrub(made.message), OPEN_SETTINGS);
          if (action === OPEN_SETTINGS) await openSettings();
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
    sleep: (ms) => abortableSleep(ms, control.signal),
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
    paid: isPaid(report.outcome),
    request: redactRequest(report.request),
  };
  if (entry.paid) ctx.spend.recordCall(op, bases, entry.id);
  ctx.log.info(
    `${op.title} POST ${entry.request.url} -> ${statusText(entry)} in ${entry.durationMs} ms, ` +
      `${entry.attempts} attempt(s), transaction ${entry.paid ? 'spent' : 'not spent'}`,
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
