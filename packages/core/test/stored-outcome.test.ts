// What a client trusts when it reads a kept answer back (stored-outcome.ts): every outcome the
// response reader makes, through JSON and back, and nothing with a part missing.
import { describe, expect, it } from 'vitest';
import { getOperation, isStoredOutcome, type Outcome, readResponse } from '../src/index.js';

const op = getOperation('phone-lookup');
const read = (status: number, body = '') => readResponse(op, { status, headers: {}, body });
const throughJson = (outcome: Outcome): unknown => JSON.parse(JSON.stringify(outcome));

describe('isStoredOutcome', () => {
  it('accepts every outcome the reader makes, as it comes back from JSON', () => {
    const made = [
      read(200, JSON.stringify({ Name: { FName: 'Ann', Nick: 'A' }, Extra: 1 })),
      read(200, 'not json'),
      read(204),
      read(440, '{}'),
      read(401, '{}'),
      read(429, '{}'),
      read(500, 'oops'),
    ];
    expect(new Set(made.map((o) => o.kind))).toEqual(new Set(['record', 'unreadable', 'no-match', 'error']));
    for (const outcome of made) expect(isStoredOutcome(throughJson(outcome)), outcome.kind).toBe(true);
  });

  it('refuses a record or an answer with a part missing, and what is no outcome', () => {
    const record = throughJson(read(200, JSON.stringify({ Name: { FName: 'Ann' } }))) as Record<
      string,
      unknown
    >;
    for (const part of ['record', 'extra', 'mismatches', 'raw']) {
      const { [part]: _dropped, ...rest } = record;
      expect(isStoredOutcome(rest), `record without ${part}`).toBe(false);
    }
    expect(isStoredOutcome({ ...record, extra: [] })).toBe(false);
    expect(isStoredOutcome({ kind: 'unreadable', status: 200, raw: 'x' })).toBe(false);
    expect(isStoredOutcome({ kind: 'error', error: { message: 'no code' } })).toBe(false);
    expect(isStoredOutcome({ kind: 'error', error: null })).toBe(false);
    for (const other of [null, undefined, 42, 'record', [], {}, { kind: 'maybe' }])
      expect(isStoredOutcome(other), JSON.stringify(other)).toBe(false);
  });
});
