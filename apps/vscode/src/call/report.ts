// What the user is told after a call, and offered: the result (the view, or the JSON document), a
// message in words with the action that helps ("Set API Key" on 401, "Retry" on 5xx, "Ask again
// (spends 1 transaction)" on a paid answer that could not be read), and what that action does.
// Every message passes through the key scrubber.
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { type HistoryEntry, inputSummary, mayHaveBeenPaid, operationOf } from '../history';
import { COMMAND } from '../manifest';
import { ACTION_FOR, ASK_AGAIN, OPEN_SETTINGS, openSettings, RETRY, SET_API_KEY } from './actions';
import { sendCall } from './send';
import { statusText } from './status-text';

/**
 * Shows an entry where the user asked results to go: the view (default) or the JSON document. The
 * view's help button does what the message's would (performAction), for this entry.
 */
export async function showResult(ctx: Ctx, entry: HistoryEntry): Promise<void> {
  if (ctx.config.resultView === 'json') await ctx.results.show(entry);
  else ctx.resultView.show(entry, (action) => performAction(ctx, action, entry));
}

/** Opens the result document and says what happened, offering the action that helps. */
export async function reportCall(ctx: Ctx, entry: HistoryEntry): Promise<void> {
  await showResult(ctx, entry);
  const op = operationOf(entry);
  const { outcome } = entry;
  const spent = entry.paid
    ? 'A transaction was spent.'
    : mayHaveBeenPaid(entry)
      ? 'It is counted in the spend ledger as may have been paid.'
      : 'No transaction was spent.';
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

async function offer(ctx: Ctx, shown: Thenable<string | undefined>, entry: HistoryEntry) {
  const action = await shown;
  if (action) await performAction(ctx, action, entry);
}

/** Does what a message's or the result view's action button says. */
async function performAction(ctx: Ctx, action: string, entry: HistoryEntry | undefined): Promise<void> {
  if (action === SET_API_KEY) await vscode.commands.executeCommand(COMMAND.setApiKey);
  if (action === OPEN_SETTINGS) await openSettings();
  if ((action === RETRY || action === ASK_AGAIN) && entry) {
    const again = await sendCall(ctx, operationOf(entry), entry.input);
    if (again) await reportCall(ctx, again);
  }
}
