// Answers already paid for. Before a command sends a request, the History is searched for the same
// request already answered (earlier-answer.ts: the same request key, sent to the same URL, younger
// than the setting; records, no-matches and paid-but-unreadable answers only); if there is one, the
// user chooses between seeing that answer (no transaction) and calling again (one transaction). An
// unreadable answer is not bought again by accident, and "Call again" says what it costs. An error,
// even a billed 440, is never shown in place of a call.
import { type CleanInput, type Operation, operationUrl } from '@enrich/core';
import * as vscode from 'vscode';
import type { Ctx } from '../ctx';
import { type HistoryEntry, inputSummary } from '../history';
import { findEarlierAnswer } from './earlier-answer';

export const SHOW_EARLIER = 'Show that answer (no transaction)';
export const CALL_AGAIN = 'Call again (1 transaction)';

/**
 * The History's answer to this request, sent where it would go now, younger than the setting: what
 * a palette call offers to show and a chat tool answers with, free.
 */
export function earlierAnswer(ctx: Ctx, op: Operation, input: CleanInput): HistoryEntry | undefined {
  const target = operationUrl(op, ctx.config);
  // A base URL that is not allowed finds nothing here; the call then says what is wrong with it.
  if (!target.ok) return undefined;
  return findEarlierAnswer(
    ctx.history.all(),
    { op, input, url: target.url },
    Date.now(),
    ctx.config.reuseAnswersMs,
  );
}

export type ReuseChoice = 'show' | 'call' | undefined;

/** Asks in a modal; Escape (or its Cancel) is undefined: neither show nor call. */
export async function askReuse(
  op: Operation,
  input: CleanInput,
  earlier: HistoryEntry,
  now: number,
): Promise<ReuseChoice> {
  const answered =
    earlier.outcome.kind === 'record'
      ? 'It found a record.'
      : earlier.outcome.kind === 'unreadable'
        ? 'The answer was paid for but could not be read.'
        : 'It found no match (204).';
  const choice = await vscode.window.showInformationMessage(
    `${op.title} for ${inputSummary(input)} was answered ${timeAgo(now - earlier.at)} ago. ${answered}`,
    { modal: true, detail: 'Showing that answer spends no transaction; calling again spends one.' },
    SHOW_EARLIER,
    CALL_AGAIN,
  );
  return choice === SHOW_EARLIER ? 'show' : choice === CALL_AGAIN ? 'call' : undefined;
}

/** "less than a minute", "1 minute", "5 hours", "3 days". */
export function timeAgo(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) return 'less than a minute';
  if (minutes < 60) return plural(minutes, 'minute');
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return plural(hours, 'hour');
  return plural(Math.floor(hours / 24), 'day');
}

function plural(count: number, unit: string): string {
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}
