// What a chat tool's call would do now, worked out without sending or changing anything (for
// prepareInvocation, which must be free of side effects): invalid input, an answer the History
// already holds (free), no key, a key or base URL that is not allowed, or a paid call to a target
// (where, and with whose key: call/target.ts). The confirmation shows it; invoke does what it showed.
import { type CleanInput, type Operation, validate } from '@enrich/core';
import { earlierAnswer } from '../call/reuse';
import { type Target, targetOf } from '../call/target';
import type { Ctx } from '../ctx';
import type { HistoryEntry } from '../history';

export type Plan =
  | { readonly kind: 'invalid'; readonly message: string }
  /** A person forgotten at their request (issue 38): not sent, not answered from the History. */
  | { readonly kind: 'forgotten'; readonly message: string }
  | { readonly kind: 'free'; readonly input: CleanInput; readonly earlier: HistoryEntry }
  | { readonly kind: 'no-key'; readonly input: CleanInput }
  | { readonly kind: 'not-allowed'; readonly input: CleanInput; readonly message: string }
  | { readonly kind: 'paid'; readonly input: CleanInput; readonly target: Target };

export async function planCall(ctx: Ctx, op: Operation, given: unknown): Promise<Plan> {
  const checked = validate(op, given);
  if (!checked.ok) return { kind: 'invalid', message: checked.message };
  const input = checked.input;
  const forgotten = ctx.privacy.refusal(op, input);
  if (forgotten) return { kind: 'forgotten', message: forgotten };
  const earlier = earlierAnswer(ctx, op, input);
  if (earlier) return { kind: 'free', input, earlier };
  const where = targetOf(op, ctx.config.bases, await ctx.callKey());
  if (where.ok) return { kind: 'paid', input, target: where.target };
  return where.problem === 'no-key'
    ? { kind: 'no-key', input }
    : { kind: 'not-allowed', input, message: where.message };
}
