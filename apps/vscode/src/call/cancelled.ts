// What a person is told of a call they cancelled, the palette's and the chat tools' alike: whether
// anything was sent, and what it may have cost. A call cancelled on its way may have been billed by
// the service (it may bill a request as it takes it): it is in the History and the spend ledger as
// "may have been paid", and asking again may pay again.
import type { Operation } from '@enrich/core';
import { mayHaveBeenPaid } from '../history';
import type { Bought } from './purchase';

export type Cancelled = Extract<Bought, { kind: 'cancelled' }>;

export function cancelledWords(op: Operation, cancelled: Cancelled): string {
  const { entry } = cancelled;
  if (entry?.paid)
    return `${op.title}: cancelled, but the answer had already arrived: a transaction was spent. It is in the History.`;
  if (entry && mayHaveBeenPaid(entry))
    return `${op.title}: cancelled after the request was sent, before its answer: the service may have billed it. It is in the History and the spend ledger as may have been paid; asking again may pay again.`;
  if (cancelled.onItsWay)
    return `${op.title}: cancelled; no transaction spent by this call. The same request, asked by another call, is still on its way: its answer will be in the History.`;
  if (cancelled.sent)
    return `${op.title}: cancelled between attempts (those sent had been answered without a charge); no transaction spent.`;
  return `${op.title}: cancelled before anything was sent; no transaction spent.`;
}

/** Whether the person should be warned: the call may have cost a transaction they did not get. */
export function cancelledCostly(cancelled: Cancelled): boolean {
  return cancelled.entry !== undefined;
}
