// Setting and clearing the API key. Saving is read back (store.ts): where secret storage does
// not work (Linux without a keyring), the user is told so and may keep the key for this session
// only, in memory.
import { checkApiKey } from '@enrich/core';
import * as vscode from 'vscode';
import type { CommandFactory } from '../ctx';
import { COMMAND } from '../manifest';
import { checkSavedKey } from './check';

export const SESSION_ONLY = 'Use for This Session Only';

export const setApiKey: CommandFactory = (ctx) => async () => {
  // password: the key is never shown on screen, so no screenshot or screen share can catch it.
  const key = await vscode.window.showInputBox({
    title: 'Enrichment: Set API Key',
    prompt: "The key is kept in VS Code's secret storage, never in settings or history.",
    placeHolder: 'Paste the API key',
    password: true,
    ignoreFocusOut: true,
    // Surrounding spaces (a paste) are trimmed; anything else checkApiKey refuses is a copy mistake.
    validateInput: (text) => (text.trim() === '' ? 'Enter the key' : checkApiKey(text.trim())),
  });
  if (key === undefined) return;
  // A user who has a key is done trying: calls go to the real service with it.
  if (ctx.config.trialBase) await vscode.commands.executeCommand(COMMAND.useRealService);
  const result = await ctx.keys.set(key);
  if (!result.saved) {
    ctx.log.warn(`API key not saved: ${result.reason}`);
    const choice = await vscode.window.showWarningMessage(
      ctx.scrub(`VS Code could not keep the API key: ${result.reason}.`),
      {
        modal: true,
        detail:
          'On Linux this usually means no keyring (GNOME Keyring or KWallet) is running. ' +
          'You can use the key in this window only: it is kept in memory, never written, and forgotten on reload.',
      },
      SESSION_ONLY,
    );
    if (choice !== SESSION_ONLY) {
      await ctx.refresh();
      return;
    }
    ctx.keys.useForSession(key);
    ctx.log.info('API key kept in memory for this session only');
  } else {
    ctx.log.info('API key set');
  }
  const saved = await ctx.refresh();
  // The free check: each base in use says whether it accepts the key, and nothing is spent.
  if (saved) await checkSavedKey(ctx, saved, ctx.keys.sessionOnly);
};

export const clearApiKey: CommandFactory = (ctx) => async () => {
  await ctx.keys.clear();
  await ctx.refresh();
  ctx.log.info('API key cleared');
  void vscode.window.showInformationMessage('API key cleared.');
};
