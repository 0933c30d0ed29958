// "Try Without a Key" and its way back. Trying starts the sandbox inside the extension host and
// points this session's calls at it with the sandbox's public demo key; the user's settings and
// stored key are not touched, so returning to the real service is only forgetting the session's
// base. Each is a small factory of the command table (../commands.ts).
import * as vscode from 'vscode';
import type { CommandFactory } from '../ctx';
import { COMMAND, operationCommandIdOf, TRYING_CONTEXT } from '../manifest';

export const TRY_PHONE_LOOKUP = 'Try Phone Lookup';
export const BACK_TO_SERVICE = 'Return to the Real Service';

export const tryWithoutKey: CommandFactory = (ctx) => async (): Promise<string | undefined> => {
  let url: string;
  try {
    url = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Window, title: 'Enrichment: starting the sandbox' },
      () => ctx.trial.start(),
    );
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    ctx.log.error(`The sandbox did not start: ${why}`);
    void vscode.window.showErrorMessage(ctx.scrub(`Enrichment: the sandbox did not start: ${why}`));
    return undefined;
  }
  ctx.config.useForSession(url);
  await vscode.commands.executeCommand('setContext', TRYING_CONTEXT, true);
  await ctx.refresh();
  ctx.log.info(
    `Trying without a key: calls go to the sandbox inside VS Code at ${url} (made-up data, nothing spent)`,
  );
  // Not awaited: a notification resolves only when it is dismissed, and the command is done.
  void vscode.window
    .showInformationMessage(
      'Trying without a key: calls go to a sandbox inside VS Code with made-up data, and nothing is spent. ' +
        'Your settings and API key are unchanged.',
      TRY_PHONE_LOOKUP,
      BACK_TO_SERVICE,
    )
    .then((action) => {
      if (action === TRY_PHONE_LOOKUP)
        void vscode.commands.executeCommand(operationCommandIdOf('phone-lookup'));
      if (action === BACK_TO_SERVICE) void vscode.commands.executeCommand(COMMAND.useRealService);
    });
  return url;
};

export const useRealService: CommandFactory = (ctx) => async (): Promise<void> => {
  const wasTrying = ctx.config.trialBase !== undefined;
  ctx.config.useForSession(undefined);
  await ctx.trial.stop();
  await vscode.commands.executeCommand('setContext', TRYING_CONTEXT, false);
  const key = await ctx.refresh();
  if (!wasTrying) return;
  ctx.log.info('Stopped trying: calls go to the bases in the settings again; the sandbox stopped');
  const next = key ? '' : ' Set your API key to call it.';
  void vscode.window.showInformationMessage(
    `Calls go to the real service again (${ctx.config.baseUrlV3}).${next}`,
  );
};
