// Entry point. Activation happens only when one of the extension's commands, views or chat tools is
// used (VS Code derives those activation events from the manifest's contributions).
import * as vscode from 'vscode';
import { registerChatTools } from './chat/tools';
import { createCommands } from './commands';
import { Ctx } from './ctx';
import { HISTORY_VIEW, OPERATIONS_VIEW, SPEND_VIEW } from './manifest';
import { HistoryTree } from './tree/history';
import { OperationsTree } from './tree/operations';
import { SpendTree } from './tree/spend';

let active: Ctx | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const ctx = await Ctx.create(context);
  active = ctx;
  for (const [id, factory] of Object.entries(createCommands())) {
    ctx.subscribe(vscode.commands.registerCommand(id, factory(ctx)));
  }
  ctx.subscribe(...registerChatTools(ctx));
  const history = new HistoryTree(ctx.history);
  const spend = new SpendTree(ctx.spend);
  ctx.subscribe(
    history,
    spend,
    vscode.window.createTreeView(OPERATIONS_VIEW, { treeDataProvider: new OperationsTree() }),
    vscode.window.createTreeView(HISTORY_VIEW, { treeDataProvider: history }),
    vscode.window.createTreeView(SPEND_VIEW, { treeDataProvider: spend }),
  );
}

/** Awaited by VS Code: the session's sandbox has closed its port before the host goes on. */
export async function deactivate(): Promise<void> {
  await active?.trial.stop();
  active = undefined;
}
