// Shows the result of an "Enrich File" run, of the input's kind. A CSV or JSON Lines output is text:
// it opens in an editor. VS Code cannot show a workbook (it would open as binary), so an .xlsx output
// is selected in the Explorer instead, and on a desktop the closing message offers to open it in the
// system's spreadsheet app or to show it in its folder. In a remote window or a browser (code-server)
// the file is on the other machine: the Explorer's own Download... takes it there.
import { kindOfName } from '@enrich/bulk';
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';

export const OPEN_WORKBOOK = 'Open in Spreadsheet App';
export const SHOW_IN_FOLDER = 'Show in Folder';

/** Opens (or selects) the output, then says `message`, with the actions a workbook has. */
export async function showOutput(ctx: Ctx, outPath: string, message: string): Promise<void> {
  const uri = vscode.Uri.file(outPath);
  if (kindOfName(outPath) !== 'xlsx') {
    await vscode.window.showTextDocument(uri, { preview: false });
    void vscode.window.showInformationMessage(ctx.scrub(message));
    return;
  }
  try {
    await vscode.commands.executeCommand('revealInExplorer', uri);
  } catch (error) {
    // Outside the workspace's folders, say: the message still names the file.
    ctx.log.warn(`Enrich File: could not select ${outPath} in the Explorer: ${(error as Error).message}`);
  }
  const onThisMachine = vscode.env.uiKind === vscode.UIKind.Desktop && vscode.env.remoteName === undefined;
  const actions = onThisMachine ? [OPEN_WORKBOOK, SHOW_IN_FOLDER] : [];
  const where = onThisMachine
    ? ' VS Code does not show workbooks: open it in a spreadsheet app.'
    : ' VS Code does not show workbooks: it is selected in the Explorer (Download... takes it to this computer).';
  // Not awaited: the run is over whether or not the user picks an action.
  void vscode.window
    .showInformationMessage(ctx.scrub(`${message}${where}`), ...actions)
    .then(async (action) => {
      if (action === OPEN_WORKBOOK) await vscode.env.openExternal(uri);
      else if (action === SHOW_IN_FOLDER) await vscode.commands.executeCommand('revealFileInOS', uri);
    });
}
