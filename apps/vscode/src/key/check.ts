// The free key check after "Set API Key": core's checkKey sends each base in use an empty request
// that the service must refuse as incomplete. 400 means the key was accepted, 401 that it was
// refused; neither spends a transaction. Anything else (a redirect, 404, a network failure) is
// reported as it is. One notification says the key was saved and what each base said.
import { checkKey, type KeyCheckResult } from '@enrich/core';
import { createFetchTransport } from '@enrich/core/fetch-transport';
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';

export const KEY_SAVED = "API key saved in VS Code's secret storage.";
export const KEY_IN_MEMORY = 'API key kept in memory for this session only.';

/** Runs the check for the key just saved and shows the verdict of each base. */
export async function checkSavedKey(
  ctx: Ctx,
  apiKey: string,
  sessionOnly = false,
): Promise<readonly KeyCheckResult[]> {
  const saved = sessionOnly ? KEY_IN_MEMORY : KEY_SAVED;
  const settings = { apiKey, baseUrl: ctx.config.baseUrl, baseUrlV3: ctx.config.baseUrlV3 };
  const report = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: 'Enrichment: checking the API key (free)' },
    () => checkKey(settings, createFetchTransport({ timeoutMs: ctx.config.requestTimeoutMs })),
  );
  if (!report.ok) {
    ctx.log.warn(`Key check not run: ${report.message}`);
    void vscode.window.showWarningMessage(
      ctx.scrub(`${saved} The free key check was not run: ${report.message}`),
    );
    return [];
  }
  for (const result of report.results)
    ctx.log.info(`Key check ${result.base}: ${result.verdict}. ${result.detail}`);
  const words = report.results.map((r) => `${r.base}: ${verdictWords(r)}`).join('; ');
  const allAccepted = report.results.every((r) => r.verdict === 'accepted');
  const message = ctx.scrub(`${saved} Free key check (no transaction spent): ${words}`);
  if (allAccepted) void vscode.window.showInformationMessage(message);
  else void vscode.window.showWarningMessage(message);
  return report.results;
}

/** What a base said, in words that do not repeat a call's own error message. */
export function verdictWords(result: KeyCheckResult): string {
  switch (result.verdict) {
    case 'accepted':
      return 'key accepted.';
    case 'refused':
      return 'the service does not accept this key (HTTP 401).';
    case 'unexpected':
    case 'unreachable':
      return result.detail;
  }
}
