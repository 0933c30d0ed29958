// Text that stands for a number or a flag: the response reader and the SDK's typed record convert by
// one rule (leaf-text.ts), so no client turns "12.0" into 12 while another keeps "12.0".
import { describe, expect, it } from 'vitest';
import { typedRecord } from '../src/client.js';
import { getOperation, readResponse } from '../src/index.js';
import { flagFromText, numberFromText } from '../src/leaf-text.js';
import { json } from './response-fixtures.js';

const phoneAppend = getOperation('phone-append');
const phoneLookup = getOperation('phone-lookup');

// [text, the number it converts to, or undefined when it stays text]
const NUMBERS: readonly (readonly [string, number | undefined])[] = [
  ['12', 12],
  ['-3', -3],
  ['0.5', 0.5],
  ['0', 0],
  ['12.0', undefined],
  ['012', undefined],
  [' 12', undefined],
  ['12 ', undefined],
  ['1e3', undefined],
  ['-0', undefined],
  ['+5', undefined],
  ['0x10', undefined],
  ['', undefined],
  ['Infinity', undefined],
  ['NaN', undefined],
  ['9007199254740993', undefined],
  ['abc', undefined],
];

const FLAGS: readonly (readonly [string, boolean | undefined])[] = [
  ['true', true],
  ['false', false],
  ['True', undefined],
  ['1', undefined],
  ['yes', undefined],
  ['', undefined],
];

describe('numberFromText and flagFromText', () => {
  it.each(NUMBERS)('%j as a number: %j', (text, number) => expect(numberFromText(text)).toBe(number));
  it.each(FLAGS)('%j as a flag: %j', (text, flag) => expect(flagFromText(text)).toBe(flag));
});

describe('the SDK and the response reader agree', () => {
  it.each(NUMBERS)('Phone Append PHV sent as %j', (text, number) => {
    const outcome = readResponse(phoneAppend, json(200, { PHV: text }));
    if (outcome.kind !== 'record') throw new Error(outcome.kind);
    const read = outcome.record.PHV;
    // The reader keeps what does not convert as text ("" is an empty value); the SDK's typed record
    // has a number or null, and the same number.
    expect(read).toBe(number ?? text);
    expect(typedRecord(phoneAppend.output, outcome.record).PHV).toBe(number ?? null);
  });

  it.each(FLAGS)('Phone Lookup Deliverable sent as %j', (text, flag) => {
    const outcome = readResponse(phoneLookup, json(200, { Address: { Deliverable: text } }));
    if (outcome.kind !== 'record') throw new Error(outcome.kind);
    const read = (outcome.record.Address as Record<string, unknown>).Deliverable;
    expect(read).toBe(flag ?? text);
    const typed = typedRecord(phoneLookup.output, outcome.record).Address as Record<string, unknown>;
    expect(typed.Deliverable).toBe(flag ?? null);
  });
});
