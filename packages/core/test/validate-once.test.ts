// An input is checked once: a client validates it (to refuse it in its words, to key its answer),
// then callOperation is handed validate()'s own clean input and does not check it a second time.
// What must not follow: an input that skips a check. A copy, an input checked for another
// operation, a changed one (it cannot be: it is frozen) or any other object is checked in full.
import { describe, expect, it } from 'vitest';
import { callOperation, type HttpRequest, validate } from '../src/index.js';
import { op, SETTINGS } from './api.js';

function recording() {
  const sent: HttpRequest[] = [];
  return {
    sent,
    options: {
      settings: SETTINGS,
      transport: async (request: HttpRequest) => {
        sent.push(request);
        return { status: 204, headers: {}, body: '' };
      },
      sleep: async () => undefined,
      now: () => 0,
    },
  };
}

function clean(id: Parameters<typeof op>[0], raw: unknown) {
  const checked = validate(op(id), raw);
  if (!checked.ok) throw new Error(checked.message);
  return checked.input;
}

describe('an input validated once', () => {
  it("is validate()'s own object, frozen, and given again it comes back as it is (not checked again)", () => {
    const input = clean('phone-lookup', { phone: '(555) 010-2030' });
    expect(input).toEqual({ Phone: '5550102030' });
    expect(Object.isFrozen(input)).toBe(true);
    const again = validate(op('phone-lookup'), input);
    // A second check would build a new object: the same one means it was not checked again.
    expect(again.ok && again.input).toBe(input);
    expect(() => {
      (input as Record<string, string>).Phone = '123';
    }).toThrow(TypeError);
  });

  it('is checked in full when it is a copy, or was checked for another operation', () => {
    const input = clean('phone-lookup', { Phone: '5550102030' });
    const copy = validate(op('phone-lookup'), { ...input });
    expect(copy.ok).toBe(true);
    expect(copy.ok && copy.input).not.toBe(input);
    const other = validate(op('email-verify'), input);
    expect(other.ok).toBe(false);
    expect(!other.ok && other.message).toMatch(/Email Verify does not take Phone/);
  });

  it('is sent by callOperation as validated; an unchecked object is still refused before sending', async () => {
    const { sent, options } = recording();
    const input = clean('phone-lookup', { Phone: '555.010.2030' });
    const report = await callOperation(op('phone-lookup'), input, options);
    expect(report.attempts).toBe(1);
    expect(JSON.parse(String(sent[0]?.body))).toEqual({ Phone: '5550102030' });
    // Shaped like a clean input, but never validated: checked, refused, nothing sent.
    const forged = await callOperation(op('phone-lookup'), { Phone: '555010203' }, options);
    expect(forged).toMatchObject({ attempts: 0, request: undefined });
    expect(forged.outcome.kind === 'error' && forged.outcome.error.code).toBe('invalid-input');
    expect(sent).toHaveLength(1);
  });
});
