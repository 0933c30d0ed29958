// Big answer journals for the forget tests and bench: real answers of the sandbox (its in-process
// handler, core's response reader), one per distinct phone, as the journal writes them. The
// sandbox's answer for one phone is the template; each line is that answer with its phone's digits
// in place of the template's (the sandbox's body for another phone has other names, not another
// size), so that a journal of 1,000,000 answers is written in a few seconds.
import { closeSync, openSync, writeSync } from 'node:fs';
import { buildRequest, getOperation, readResponse, requestKey } from '@enrich/core';
import { createSandbox, DEMO_KEY } from '@enrich/sandbox';

const op = getOperation('phone-lookup');
const TEMPLATE_PHONE = '5557770000';

/** The i-th phone of a made journal: 10 digits, none of them the template's. */
export const madePhone = (i: number) => `556${String(i).padStart(7, '0')}`;

/** One journal line of the sandbox's answer for `phone`, bought at `at`. */
export function templateLine(at: number): (phone: string) => string {
  const sandbox = createSandbox();
  const built = buildRequest(
    op,
    { Phone: TEMPLATE_PHONE },
    { apiKey: DEMO_KEY, baseUrl: 'http://127.0.0.1', baseUrlV3: 'http://127.0.0.1' },
  );
  if (!built.ok) throw new Error(built.message);
  const { headers, body } = built.request;
  const response = sandbox.handle({ method: 'POST', path: op.path, headers, body });
  const outcome = readResponse(op, {
    status: response.status,
    headers: response.headers,
    body: response.body,
  });
  const line = JSON.stringify({
    v: 1,
    ns: 'sandbox',
    key: requestKey(op, { Phone: TEMPLATE_PHONE }),
    at,
    outcome,
  });
  const parts = line.split(TEMPLATE_PHONE);
  return (phone) => parts.join(phone);
}

/** Writes a journal of `count` answers (phones madePhone(0..count-1)); returns its size in bytes. */
export function makeJournal(path: string, count: number, at = Date.now()): number {
  const line = templateLine(at);
  const fd = openSync(path, 'w');
  let size = 0;
  try {
    let batch = '';
    for (let i = 0; i < count; i++) {
      batch += `${line(madePhone(i))}\n`;
      if (batch.length > 1 << 20 || i === count - 1) {
        size += writeSync(fd, batch);
        batch = '';
      }
    }
  } finally {
    closeSync(fd);
  }
  return size;
}
