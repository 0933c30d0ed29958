// Giving up on requests in flight (Ctrl-C, then abandon()): the transport's answer raced against the
// run's abandon signal. Apart from the Sender because it is one small mechanism with its own error
// class; one listener for all requests (AbortSet), nothing added when there is no abandon signal.

import type { AbortSet } from './abort-set.js';

/** The rejection of an attempt abandoned on the wire. */
export class Abandoned extends Error {}

/** The transport's answer, or a rejection as soon as the run abandons requests in flight. */
export function abandonable<T>(answer: Promise<T>, abandon: AbortSet): Promise<T> {
  if (abandon.signal === undefined) return answer;
  if (abandon.aborted) return Promise.reject(new Abandoned('abandoned: the run was interrupted'));
  return new Promise<T>((resolve, reject) => {
    const forget = abandon.add(() => reject(new Abandoned('abandoned: the run was interrupted')));
    answer.then(
      (value) => {
        forget();
        resolve(value);
      },
      (error: unknown) => {
        forget();
        reject(error);
      },
    );
  });
}
