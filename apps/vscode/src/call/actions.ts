// The buttons a message (and the result view) offers after a call, and which error offers which.
// Apart from what a button does after a call (report.ts), so that sending a call and the result view
// can name them without importing it.
import type { ErrorCode } from '@enrich/core';
import * as vscode from 'vscode';
import { CONFIG_SECTION } from '../settings-schema';

export const SET_API_KEY = 'Set API Key';
export const RETRY = 'Retry';
export const OPEN_SETTINGS = 'Open Settings';
export const ASK_AGAIN = 'Ask again (spends 1 transaction)';

export const ACTION_FOR: Partial<Record<ErrorCode, string>> = {
  unauthorized: SET_API_KEY,
  server: RETRY,
  network: RETRY,
  allowance: RETRY,
  config: OPEN_SETTINGS,
};

/** What Open Settings does: the extension's settings, where a base URL that is not allowed is fixed. */
export async function openSettings(): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.openSettings', CONFIG_SECTION);
}
