// SpreadsheetApp.getUi(): the add-on menu, the sidebar, dialogs and alerts, recorded in the
// runtime's UI log. Custom functions may not reach it; AuthMode.NONE may build menus only.
import type { Execution } from './execution.js';
import type { SpreadsheetHost } from './spreadsheet-app.js';
import { SPREADSHEET_COSTS } from './spreadsheet-costs.js';

export function createUi(exec: Execution, host: SpreadsheetHost): object {
  const fail = (message: string): never => {
    throw exec.realm.error(message);
  };
  exec.allow('SpreadsheetApp.getUi', { none: true });
  const user = exec.user.email;
  const ButtonSet = { OK: 'OK', OK_CANCEL: 'OK_CANCEL', YES_NO: 'YES_NO', YES_NO_CANCEL: 'YES_NO_CANCEL' };
  const Button = { OK: 'OK', CANCEL: 'CANCEL', YES: 'YES', NO: 'NO', CLOSE: 'CLOSE' };
  const menu = (items: (string | null)[]) => {
    const self = {
      addItem: (caption: string, functionName: string) => {
        if (!host.globalFunctions().includes(functionName) || functionName.endsWith('_')) {
          fail(`Script function not found: ${functionName}`);
        }
        items.push(`${caption} -> ${functionName}`);
        return self;
      },
      addSeparator: () => {
        items.push(null);
        return self;
      },
      addToUi: () => {
        host.ui.menus.push({ user, items });
      },
    };
    return self;
  };
  return {
    ButtonSet,
    Button,
    createAddonMenu: () => menu([]),
    createMenu: () => menu([]),
    showSidebar: (output: unknown) => {
      exec.allow('Ui.showSidebar', {});
      exec.enter(SPREADSHEET_COSTS.call);
      host.ui.sidebars.push({ user, ...host.htmlContent(output) });
    },
    showModalDialog: (output: unknown, title: string) => {
      exec.allow('Ui.showModalDialog', {});
      host.ui.dialogs.push({ user, title, html: host.htmlContent(output).html });
    },
    alert: (title: string, prompt?: string) => {
      exec.allow('Ui.alert', {});
      host.ui.alerts.push({ user, title, prompt: prompt ?? '' });
      return Button.OK;
    },
  };
}
