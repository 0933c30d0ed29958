// Whether a cancelled call may have been paid. Core's fetch transport cannot say whether a request
// cut by the caller's signal had reached the service (fetch does not tell), and a service may bill a
// request as it takes it, before it answers. So an attempt that had started before the cancellation
// and was cut by it counts as "may have been paid", as the bulk engine counts a request abandoned
// on the wire; one that had not started before it (the signal already aborted) sent nothing.
import type { HttpRequest, HttpResponse, Transport } from '@enrich/core';

export class WireWatch {
  /** Attempts that started before the cancellation. */
  started = 0;
  /** An attempt had started and was cut by the cancellation before any answer. */
  cutByCancel = false;

  constructor(
    private readonly inner: Transport,
    private readonly signal: AbortSignal,
  ) {}

  readonly send: Transport = async (request: HttpRequest): Promise<HttpResponse> => {
    const leftBeforeCancel = !this.signal.aborted;
    if (leftBeforeCancel) this.started++;
    try {
      return await this.inner(request);
    } catch (error) {
      if (leftBeforeCancel && this.signal.aborted) this.cutByCancel = true;
      throw error;
    }
  };
}
