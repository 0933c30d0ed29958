// The nine operations as chat tools (`#phoneLookup` in chat; agent mode calls them by itself),
// registered with vscode.lm.registerTool under the names the manifest contributes. They spend as
// carefully as the palette: the input is checked by core before anything is sent (an invalid one is
// answered in words, naming the field and the rule, and costs nothing); an answer the History
// already holds is given again free, and says so; the confirmation VS Code shows before a call
// states what it costs, the input and the service. A paid call uses the stored key (or the trial's
// sandbox while trying without a key) and lands in the History as a palette call does.
import {
  type CleanInput,
  checkApiKey,
  inputText,
  OPERATIONS,
  type Operation,
  operationUrl,
  validate,
} from '@enrich/core';
import * as vscode from 'vscode';
import { earlierAnswer, timeAgo } from '../call/reuse';
import { makeCall } from '../call/send';
import type { Ctx } from '../ctx';
import { type HistoryEntry, inputSummary } from '../history';
import { CATEGORY, chatToolName } from '../manifest';
import { buildModel } from '../result/model';

export type ToolInput = Record<string, unknown>;

export const SPENDS = 'spends 1 transaction';
export const FREE_FROM_HISTORY = 'free: answered from history';

export function registerChatTools(ctx: Ctx): vscode.Disposable[] {
  return OPERATIONS.map((op) => vscode.lm.registerTool(chatToolName(op), new OperationTool(ctx, op)));
}

/** What a call of this operation would do now, worked out without sending anything. */
type Plan =
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'free'; readonly input: CleanInput; readonly earlier: HistoryEntry }
  | { readonly kind: 'no-key'; readonly input: CleanInput }
  | { readonly kind: 'not-allowed'; readonly input: CleanInput; readonly message: string }
  | { readonly kind: 'paid'; readonly input: CleanInput; readonly apiKey: string; readonly service: string };

export class OperationTool implements vscode.LanguageModelTool<ToolInput> {
  constructor(
    private readonly ctx: Ctx,
    private readonly op: Operation,
  ) {}

  private async plan(given: unknown): Promise<Plan> {
    const checked = validate(this.op, given);
    if (!checked.ok) return { kind: 'invalid', message: checked.message };
    const input = checked.input;
    const earlier = earlierAnswer(this.ctx, this.op, input);
    if (earlier) return { kind: 'free', input, earlier };
    const apiKey = await this.ctx.refresh();
    if (!apiKey) return { kind: 'no-key', input };
    const keyProblem = checkApiKey(apiKey);
    if (keyProblem) return { kind: 'not-allowed', input, message: keyProblem };
    const target = operationUrl(this.op, this.ctx.config);
    if (!target.ok) return { kind: 'not-allowed', input, message: target.message };
    return { kind: 'paid', input, apiKey, service: this.service(target.url) };
  }

  private service(url: string): string {
    if (this.ctx.config.trialBase)
      return `the sandbox of Try Without a Key (made-up data, nothing billed): ${url}`;
    if (this.ctx.config.usesSandbox) return `a local sandbox: ${url}`;
    return url;
  }

  async prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<ToolInput>,
  ): Promise<vscode.PreparedToolInvocation> {
    const plan = await this.plan(options.input);
    const title = this.op.title;
    switch (plan.kind) {
      case 'invalid':
        return { invocationMessage: `${title}: invalid input, nothing sent` };
      case 'no-key':
      case 'not-allowed':
        return { invocationMessage: `${title}: nothing sent` };
      case 'free':
        return {
          invocationMessage: `${title} for ${inputSummary(plan.input)}: ${FREE_FROM_HISTORY}`,
          confirmationMessages: {
            title: `${title}: ${FREE_FROM_HISTORY}`,
            message: new vscode.MarkdownString(
              this.ctx.scrub(
                [
                  `Input: ${inputText(plan.input)}`,
                  `Service: ${plan.earlier.request.url}`,
                  `Cost: ${FREE_FROM_HISTORY} of ${timeAgo(Date.now() - plan.earlier.at)} ago; nothing is sent, no transaction spent.`,
                ].join('\n\n'),
              ),
            ),
          },
        };
      case 'paid':
        return {
          invocationMessage: `${title} for ${inputSummary(plan.input)}`,
          confirmationMessages: {
            title: `${title}: ${SPENDS}`,
            message: new vscode.MarkdownString(
              this.ctx.scrub(
                [
                  `Input: ${inputText(plan.input)}`,
                  `Service: ${plan.service}`,
                  `Cost: ${SPENDS} (a no match too); the answer is kept in the ${CATEGORY} History.`,
                ].join('\n\n'),
              ),
            ),
          },
        };
    }
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<ToolInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const plan = await this.plan(options.input);
    const title = this.op.title;
    switch (plan.kind) {
      case 'invalid':
        return this.text(`${title}: invalid input: ${plan.message}. Nothing was sent; no transaction spent.`);
      case 'no-key':
        return this.text(
          `${title}: no API key is set, so nothing was sent. The person can run "${CATEGORY}: Set API Key", or "${CATEGORY}: Try Without a Key" to try the sandbox.`,
        );
      case 'not-allowed':
        return this.text(`${title}: ${plan.message} Nothing was sent; no transaction spent.`);
      case 'free': {
        const at = new Date(plan.earlier.at).toISOString();
        this.ctx.log.info(
          `${title}: chat tool answered from the History (${at}); nothing sent, no transaction spent`,
        );
        return this.text(
          `${reading(plan.earlier)}\nAnswered from the History (${FREE_FROM_HISTORY} of ${timeAgo(Date.now() - plan.earlier.at)} ago): nothing was sent, no transaction spent.`,
        );
      }
      case 'paid': {
        const abort = new AbortController();
        const onCancel = token.onCancellationRequested(() => abort.abort());
        try {
          const made = await makeCall(this.ctx, this.op, plan.input, plan.apiKey, {
            signal: abort.signal,
            isCancelled: () => token.isCancellationRequested,
          });
          if (made.kind === 'cancelled') return this.text(`${title}: cancelled.`);
          if (made.kind === 'not-sent') return this.text(`${title}: ${made.message} Nothing was sent.`);
          const { entry } = made;
          return this.text(
            `${reading(entry)}\n${entry.paid ? 'This call spent 1 transaction.' : 'This call spent no transaction.'} It is in the ${CATEGORY} History.`,
          );
        } finally {
          onCancel.dispose();
        }
      }
    }
  }

  private text(text: string): vscode.LanguageModelToolResult {
    return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(this.ctx.scrub(text))]);
  }
}

/**
 * A short reading of an answer, as the result view shows it: what happened, then each filled field
 * with the likely meaning of a coded value (core's likely.ts), fields not as documented, or the
 * message of an answer without a record.
 */
export function reading(entry: HistoryEntry): string {
  const model = buildModel(entry);
  const lines = [`${model.title}: ${model.words} (${model.status}).`];
  if (model.message) lines.push(model.message);
  for (const group of model.groups) {
    for (const field of group.fields) {
      const likely = field.likely ? ` (likely: ${field.likely})` : '';
      const flag = field.flag ? ` [${field.flag}]` : '';
      lines.push(`${field.path}: ${field.text}${likely}${flag}`);
    }
  }
  lines.push(...model.notes);
  return lines.join('\n');
}
