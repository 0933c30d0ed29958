// ID Verify's scores are "empty when not computed" (docs/api.md): a score about an item the request did
// not supply must be empty. The expectations are written out by hand here, not read from the
// catalog's `computedFrom`, so that this checks the catalog rather than repeats it.
import { getOperation } from '@enrich/core';
import { expect, it } from 'vitest';
import { createSandbox, DEMO_KEY } from '../src/index.js';

const idVerify = getOperation('id-verify');
const sandbox = createSandbox();

function scores(input: Record<string, string>): Record<string, string> {
  const response = sandbox.handle({
    method: 'POST',
    path: idVerify.path,
    headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  expect(response.status).toBe(200);
  return JSON.parse(response.body).IDScores;
}

const PHONE2 = ['ValidPhone2', 'NameToPhone2', 'AddressToPhone2', 'Phone2ToEmail', 'Phone2ConfidenceScore'];
const people = ['Jane', 'Omar', 'Li', 'Ada', 'Kofi', 'Maria', 'Sam', 'Ines'];

it('only FName, LName and Zip supplied: every phone, e-mail and address score is empty', () => {
  const mustBeEmpty = [
    'ValidAddress',
    'ValidPhone',
    'ValidEmail',
    'NameToPhone',
    'NameToEmail',
    'NameToAddress',
    'AddressToPhone',
    'AddressToEmail',
    'PhoneToEmail',
    'ZipToPhone',
    'PhoneConfidenceScore',
    'AddressConfidenceScore',
    ...PHONE2,
  ];
  const computed = ['ValidName', 'ValidZip', 'USLocation', 'IDVerifyScore', 'ValidationSummary'];
  const filled = new Set<string>();
  for (const first of people) {
    const got = scores({ FName: first, LName: 'Doe', Zip: '02134' });
    for (const name of mustBeEmpty) expect(got[name], name).toBe('');
    for (const name of computed) if (got[name] !== '') filled.add(name);
  }
  // Scores of supplied items are computed (random data may leave one empty now and then, not always).
  expect([...filled].sort()).toEqual([...computed].sort());
});

it('only a Phone supplied: name, address, e-mail and ZIP scores are empty, phone scores are not', () => {
  const filled = new Set<string>();
  for (let i = 0; i < 8; i++) {
    const got = scores({ Phone: `555010203${i}` });
    for (const name of ['ValidName', 'ValidAddress', 'ValidEmail', 'ValidZip', 'NameToPhone', 'ZipToPhone'])
      expect(got[name], name).toBe('');
    for (const name of ['ValidPhone', 'PhoneConfidenceScore', 'USLocation'])
      if (got[name] !== '') filled.add(name);
  }
  expect([...filled].sort()).toEqual(['PhoneConfidenceScore', 'USLocation', 'ValidPhone']);
});

it('everything supplied: every score can be computed, except those of a second phone', () => {
  const filled = new Set<string>();
  for (const first of people) {
    const got = scores({
      FName: first,
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: '02134',
      Phone: '5550102030',
      Email: 'jane.doe@example.com',
    });
    for (const name of PHONE2) expect(got[name], name).toBe('');
    for (const [name, value] of Object.entries(got)) if (value !== '') filled.add(name);
  }
  const all = Object.keys(scores({ Phone: '5550102030' }));
  expect(all).toHaveLength(28);
  expect([...filled].sort()).toEqual(all.filter((name) => !PHONE2.includes(name)).sort());
});
