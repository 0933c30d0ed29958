// The nine operations as chat tools (`#phoneLookup` in chat; agent mode calls them by itself),
// registered with vscode.lm.registerTool under the names the manifest contributes. They spend as
// carefully as the palette: the input is checked by core before anything is sent (an invalid one is
// answered in words, naming the field and the rule, and costs nothing); an answer the History
// already holds is given again free, and says so; the confirmation VS Code shows before a call
// states what it costs, the input and the service (confirmation-text.ts).
//
// What a call does is what its confirmation said (confirmations.ts): prepareInvocation works out the
// plan (plan.ts, without side effects) and remembers it; invoke takes it back and hands it to the
// purchase path every paid call shares (call/purchase.ts), which gives a free answer only from the
// History and sends a paid one only to the service, with the key, that was confirmed. Otherwise
// nothing is sent and the result says what changed and what to do. A paid call lands in the History
// and the spend ledger as a palette call does.
import { OPERATIONS, type Operation } from '@enrich/core';
import * as vscode from 'vscode';
import { abortOnCancel } from '../call/abort-on-cancel';
import { cancelledWords } from '../call/cancelled';
import type { Bought } from '../call/purchase';
import { timeAgo } from '../call/reuse';
import type { Ctx } from '../ctx';
import type { HistoryEntry } from '../history';
import { CATEGORY, chatToolName } from '../manifest';
import { buildModel } from '../result/model';
import { FREE_FROM_HISTORY, preparedInvocation } from './confirmation-text';
import { Confirmations } from './confirmations';
import { type Plan, planCall } from './plan';

export type ToolInput = Record<string, unknown>;

const NOTHING_SENT = 'Nothing was sent; no transaction spent.';
const ASK_AGAIN = 'Ask again: the new confirmation will say what it costs and where it goes.';

export function registerChatTools(ctx: Ctx): vscode.Disposable[] {
  return OPERATIONS.map((op) => vscode.lm.registerTool(chatToolName(op), new OperationTool(ctx, op)));
}

export class OperationTool implements vscode.LanguageModelTool<ToolInput> {
  private readonly confirmations = new Confirmations();

  constructor(
    private readonly ctx: Ctx,
    private readonly op: Operation,
  ) {}

  async prepareInvocation(
    options: vscode.LanguageModelToolInvocationPrepareOptions<ToolInput>,
  ): Promise<vscode.PreparedToolInvocation> {
    const plan = await planCall(this.ctx, this.op, options.input);
    this.confirmations.remember(options.input, plan);
    return preparedInvocation(this.op, plan, (text) => this.ctx.scrub(text), Date.now());
  }

  async invoke(
    options: vscode.LanguageModelToolInvocationOptions<ToolInput>,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const title = this.op.title;
    const shown = this.confirmations.take(options.input);
    if (!shown) {
      this.ctx.log.warn(`${title}: chat tool invoked without a confirmation for its input; nothing sent`);
      return this.text(
        `${title}: no confirmation was shown for this input, so nothing was sent and no transaction spent. VS Code shows one before each call: ask again.`,
      );
    }
    const { plan } = shown;
    switch (plan.kind) {
      case 'invalid':
        return this.text(`${title}: invalid input: ${plan.message}. ${NOTHING_SENT}`);
      case 'forgotten':
        return this.text(`${title}: not sent: ${plan.message}. ${NOTHING_SENT}`);
      case 'no-key':
        return this.text(
          `${title}: no API key is set, so nothing was sent. The person can run "${CATEGORY}: Set API Key", or "${CATEGORY}: Try Without a Key" to try the sandbox.`,
        );
      case 'not-allowed':
        return this.text(`${title}: ${plan.message} ${NOTHING_SENT}`);
      case 'free':
      case 'paid':
        return this.purchase(plan, shown.id, token);
    }
  }

  /** The confirmed plan through the purchase path, under the chat's cancellation. */
  private async purchase(
    plan: Extract<Plan, { kind: 'free' | 'paid' }>,
    confirmation: number,
    token: vscode.CancellationToken,
  ): Promise<vscode.LanguageModelToolResult> {
    const { op, ctx } = this;
    const order =
      plan.kind === 'free'
        ? { kind: 'free' as const, op, input: plan.input, earlier: plan.earlier }
        : { kind: 'paid' as const, op, input: plan.input, target: plan.target, fromHistory: true };
    const cancel = abortOnCancel(token);
    try {
      const bought = await ctx.purchases.buy(order, { signal: cancel.signal });
      ctx.log.info(`${op.title}: chat tool call of confirmation ${confirmation}: ${bought.kind}`);
      return this.text(this.said(plan, bought));
    } finally {
      cancel.dispose();
    }
  }

  /** What the call came to, for the model and the person. */
  private said(plan: Plan, bought: Bought): string {
    const title = this.op.title;
    switch (bought.kind) {
      case 'from-history':
        return `${reading(bought.entry)}\nAnswered from the History (${FREE_FROM_HISTORY} of ${timeAgo(Date.now() - bought.entry.at)} ago): nothing was sent, no transaction spent.`;
      case 'bought': {
        const { entry } = bought;
        const cost = bought.shared
          ? 'This call was answered by the same request, already on its way: no transaction spent by this call.'
          : entry.paid
            ? 'This call spent 1 transaction.'
            : 'This call spent no transaction.';
        return `${reading(entry)}\n${cost} It is in the ${CATEGORY} History.`;
      }
      case 'refused': {
        const said = plan.kind === 'free' ? `the confirmation said "${FREE_FROM_HISTORY}", but ` : '';
        return `${title}: ${said}${bought.message}. ${NOTHING_SENT} ${ASK_AGAIN}`;
      }
      case 'cancelled':
        return cancelledWords(this.op, bought);
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
