// What VS Code shows before a chat tool's call (prepareInvocation's answer): the confirmation's title
// says what it costs (SPENDS, or FREE_FROM_HISTORY), its Markdown message the input as it will be
// sent, the service, and the cost again; or only a progress message when nothing will be sent.
// Everything that is not ours (the input the model gave, a base URL from the settings) is shown as
// literal text (markdown-literal.ts); the progress message is a plain string, which VS Code shows as
// text.
import { inputText, type Operation } from '@enrich/core';
import * as vscode from 'vscode';
import { timeAgo } from '../call/reuse';
import { inputSummary } from '../history';
import { CATEGORY } from '../manifest';
import { markdownLiteral } from './markdown-literal';
import type { Plan } from './plan';

export const SPENDS = 'spends 1 transaction';
export const FREE_FROM_HISTORY = 'free: answered from history';

export function preparedInvocation(
  op: Operation,
  plan: Plan,
  scrub: (text: string) => string,
  now: number,
): vscode.PreparedToolInvocation {
  const title = op.title;
  switch (plan.kind) {
    case 'invalid':
      return { invocationMessage: `${title}: invalid input, nothing sent` };
    case 'forgotten':
      return { invocationMessage: `${title}: forgotten at the person's request, nothing sent` };
    case 'no-key':
    case 'not-allowed':
      return { invocationMessage: `${title}: nothing sent` };
    case 'free':
      return {
        invocationMessage: scrub(`${title} for ${inputSummary(plan.input)}: ${FREE_FROM_HISTORY}`),
        confirmationMessages: {
          title: `${title}: ${FREE_FROM_HISTORY}`,
          message: message(scrub, [
            ['Input', inputText(plan.input)],
            ['Service', plan.earlier.request.url],
            [
              'Cost',
              `${FREE_FROM_HISTORY} of ${timeAgo(now - plan.earlier.at)} ago; nothing is sent, no transaction spent.`,
            ],
          ]),
        },
      };
    case 'paid':
      return {
        invocationMessage: scrub(`${title} for ${inputSummary(plan.input)}`),
        confirmationMessages: {
          title: `${title}: ${SPENDS}`,
          message: message(scrub, [
            ['Input', inputText(plan.input)],
            ['Service', plan.target.service],
            ['Cost', `${SPENDS} (a no match too); the answer is kept in the ${CATEGORY} History.`],
          ]),
        },
      };
  }
}

/** "Label: value" paragraphs, each value shown as written. */
function message(scrub: (text: string) => string, rows: readonly [string, string][]): vscode.MarkdownString {
  return new vscode.MarkdownString(
    rows.map(([label, value]) => `${label}: ${markdownLiteral(scrub(value))}`).join('\n\n'),
  );
}
