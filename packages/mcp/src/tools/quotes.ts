// The quotes given and not used yet: a quote's plan under a one-time token, which enrich_file takes
// within TOKEN_TTL_MS for the same request (file-request.ts's sameRequest), once.
import { randomUUID } from 'node:crypto';
import type { BulkPlan } from '@enrich/bulk';
import type { FileRequest } from './file-request.js';

/** How long a quote's token may be used. */
export const TOKEN_TTL_MS = 15 * 60 * 1000;

interface Quote {
  readonly request: FileRequest;
  readonly plan: BulkPlan;
  readonly expires: number;
}

/** The quotes given and not used yet, by token. */
export class Quotes {
  private readonly quotes = new Map<string, Quote>();

  give(request: FileRequest, plan: BulkPlan): { token: string; expires: number } {
    const token = randomUUID();
    const expires = Date.now() + TOKEN_TTL_MS;
    this.quotes.set(token, { request, plan, expires });
    return { token, expires };
  }

  /** The quote of a token that has not expired; a token is taken once, whatever happens next. */
  take(token: string): Quote | undefined {
    const quote = this.quotes.get(token);
    this.quotes.delete(token);
    return quote && quote.expires >= Date.now() ? quote : undefined;
  }
}
