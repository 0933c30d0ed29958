// A request key names the operation and its clean input; requestOfKey reads them back, so a store
// can tell whose identities a kept answer's request holds (the suppression checks of issue 38).
import { describe, expect, it } from 'vitest';
import { getOperation, requestIdentities, requestKey, requestOfKey, validate } from '../src/index.js';

describe('requestOfKey', () => {
  it('gives back the operation and clean input of every key requestKey makes', () => {
    for (const [id, given] of [
      ['phone-lookup', { Phone: '(555) 010-2030' }],
      ['tcpa-verify', { phone: '5550102030', last_name: 'Doe' }],
      ['email-verify', { Email: 'Jane.Doe@Example.com' }],
    ] as const) {
      const op = getOperation(id);
      const checked = validate(op, given);
      if (!checked.ok) throw new Error(checked.message);
      const back = requestOfKey(requestKey(op, checked.input));
      expect(back?.op.id).toBe(id);
      expect(back?.input).toEqual({ ...checked.input });
      expect(requestIdentities(back?.op ?? op, back?.input ?? {})).toEqual(
        requestIdentities(op, checked.input),
      );
    }
  });

  it('is undefined for what requestKey does not make', () => {
    for (const key of ['', 'no-colon', 'not-an-operation:[]', 'phone-lookup:{', 'phone-lookup:{"Phone":1}']) {
      expect(requestOfKey(key)).toBeUndefined();
    }
  });

  it('reads only the [name, text] pairs of a key: anything else in it is not an input', () => {
    const back = requestOfKey('phone-lookup:[["Phone",1],[2,"x"],"Zy",["Email"],["Phone","5550102030"]]');
    expect(back?.op.id).toBe('phone-lookup');
    expect(back?.input).toStrictEqual({ Phone: '5550102030' });
  });
});
