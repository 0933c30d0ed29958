// Sending one call from the palette (and the History's Re-run, Retry and Ask again), from a checked
// input to a History entry: the key first (none, or one with a copy mistake, sends nothing and says
// which command helps), then the purchase path every paid call shares (purchase.ts) under a progress
// notification that can be cancelled. What the user is told afterwards is report.ts. Every message
// passes through the key scrubber.
import { type CleanInput, checkApiKey, type Operation } from '@enrich/core';
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { type HistoryEntry, inputSummary } from '../history';
import { COMMAND } from '../manifest';
import { abortOnCancel } from './abort-on-cancel';
import { OPEN_SETTINGS, openSettings, SET_API_KEY } from './actions';
import { cancelledCostly, cancelledWords } from './cancelled';
import { targetOf } from './target';

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
  const where = targetOf(op, ctx.config.bases, apiKey);
  if (!where.ok) return notSent(ctx, op, where.message);
  const title = `${op.title}: ${inputSummary(input)}`;
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title, cancellable: true },
    async (progress, token) => {
      const cancel = abortOnCancel(token);
      try {
        // The person asked for this call (no earlier answer, or "Call again"): the History does not
        // stand in for it.
        const bought = await ctx.purchases.buy(
          { kind: 'paid', op, input, target: where.target, fromHistory: false },
          { signal: cancel.signal, onRetry: (message) => progress.report({ message }) },
        );
        switch (bought.kind) {
          case 'bought':
          case 'from-history':
            return bought.entry;
          case 'refused':
            return notSent(ctx, op, bought.message);
          case 'cancelled': {
            const words = ctx.scrub(cancelledWords(op, bought));
            if (cancelledCostly(bought)) void vscode.window.showWarningMessage(words);
            else void vscode.window.showInformationMessage(words);
            return undefined;
          }
        }
      } finally {
        cancel.dispose();
      }
    },
  );
}

/** Nothing was sent: a base URL that is not allowed, or what changed since the call started. */
async function notSent(ctx: Ctx, op: Operation, message: string): Promise<undefined> {
  ctx.log.error(`${op.title}: ${message}`);
  const action = await vscode.window.showErrorMessage(ctx.scrub(message), OPEN_SETTINGS);
  if (action === OPEN_SETTINGS) await openSettings();
  return undefined;
}
