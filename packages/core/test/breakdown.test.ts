import { describe, expect, it } from 'vitest';
import {
  BreakdownTally,
  breakdownColumns,
  breakdownText,
  MAX_VALUES,
  OPERATIONS,
  type Operation,
  percentText,
  scoreBand,
} from '../src/index.js';

const op = (id: string) => OPERATIONS.find((o) => o.id === id) as Operation;
const none = { noMatch: 0, unreadable: 0, invalid: 0, errors: 0, notSent: 0 };

describe('breakdown columns', () => {
  it('are the coded fields the issue names, from the catalog', () => {
    const columns = (id: string) => breakdownColumns(op(id)).map((c) => c.column);
    expect(columns('email-verify')).toEqual(['Result']);
    expect(columns('tcpa-verify')).toEqual(['verification_code', 'phone_type']);
    expect(columns('phone-append')).toEqual(['PhoneType']);
    expect(columns('email-lookup')).toEqual(['Deliverable']);
    expect(columns('phone-lookup')).toEqual(['Deliverable']);
    expect(columns('auto-append')).toEqual(['DPV', 'Vacant']);
    expect(columns('id-verify')).toEqual([
      'ValidationSummary',
      'LinkageSummary',
      'RiskFlagSummary',
      'IDVerifyScore',
    ]);
    expect(columns('demographic-append')).toContain('EHI');
    expect(columns('demographic-append')).not.toContain('Age');
    expect(columns('email-append')).toEqual([]);
  });
});

describe('BreakdownTally', () => {
  it('counts each value, its share of the answered rows and its likely meaning', () => {
    const tally = new BreakdownTally(op('email-verify'));
    for (let i = 0; i < 6; i++) tally.add(['VERIFIED']);
    tally.add(['UNDELIVERABLE']);
    tally.count(tally.codesOf(['CATCHALL']), 2);
    tally.add(['NOTACODE']);
    tally.add(['']);
    const b = tally.result({ ...none, ok: 10, invalid: 2 });
    expect(b.rows).toBe(12);
    expect(b.answered).toBe(10);
    expect(b.outcomes.find((o) => o.outcome === 'invalid')).toMatchObject({ count: 2, share: 2 / 12 });
    const [result] = b.fields;
    expect(result?.values.map((v) => [v.label, v.count])).toEqual([
      ['VERIFIED', 6],
      ['CATCHALL', 2],
      ['(empty)', 1],
      ['NOTACODE', 1],
      ['UNDELIVERABLE', 1],
    ]);
    expect(result?.values[0]).toMatchObject({ share: 0.6, meaning: 'the mailbox exists' });
    expect(result?.values.find((v) => v.value === 'NOTACODE')?.unexpected).toBe(true);
    expect(result?.values.find((v) => v.value === '')?.unexpected).toBeUndefined();
  });

  it('counts scores in bands, low to high', () => {
    expect(['0', '19', '20', '79', '80', '100', '', 'x', '101'].map(scoreBand)).toEqual([
      '0–19',
      '0–19',
      '20–39',
      '60–79',
      '80–100',
      '80–100',
      '(not computed)',
      'x',
      '101',
    ]);
    const tally = new BreakdownTally(op('id-verify'));
    tally.add(['PASS', 'PASS', 'FAIL', '85']);
    tally.add(['PASS', 'FAIL', 'FAIL', '12']);
    tally.add(['FAIL', 'FAIL', 'FAIL', '']);
    const score = tally.result({ ...none, ok: 3 }).fields[3];
    expect(score?.values.map((v) => v.label)).toEqual(['0–19', '80–100', '(not computed)']);
  });

  it('counts the values past MAX_VALUES together as other', () => {
    const tally = new BreakdownTally(op('phone-append'));
    for (let i = 0; i < MAX_VALUES + 3; i++) tally.count(tally.codesOf([`Kind ${i}`]), i + 1);
    const [field] = tally.result({ ...none, ok: 200 }).fields;
    expect(field?.values).toHaveLength(MAX_VALUES);
    expect(field?.other).toEqual({ distinct: 3, count: 1 + 2 + 3, share: 6 / 200 });
  });
});

describe('TallyState', () => {
  it('carries the counts over to a new tally (as between Apps Script executions)', () => {
    const first = new BreakdownTally(op('tcpa-verify'));
    first.add(['Y', 'W']);
    first.add(['N', 'W']);
    const state = JSON.parse(JSON.stringify(first.state()));
    const second = new BreakdownTally(op('tcpa-verify'), state);
    second.add(['Y', 'L']);
    const fields = second.result({ ...none, ok: 3 }).fields;
    expect(fields[0]?.values.map((v) => [v.value, v.count])).toEqual([
      ['Y', 2],
      ['N', 1],
    ]);
    expect(fields[1]?.values.map((v) => [v.value, v.count])).toEqual([
      ['W', 2],
      ['L', 1],
    ]);
  });
});

describe('breakdownText', () => {
  it('says the outcomes and draws a bar per value', () => {
    const tally = new BreakdownTally(op('tcpa-verify'));
    tally.add(['Y', 'W']);
    tally.add(['YP', 'W']);
    tally.add(['Y', 'L']);
    const text = breakdownText(tally.result({ ...none, ok: 3, errors: 1 }));
    expect(text).toContain('rows: ok 3 (75%) · errors 1 (25%)');
    expect(text).toMatch(/verification_code:\n {2}Y +2 +67% {2}█{13} +likely: record verified/);
    expect(text).toContain('likely: wireless');
  });

  it('writes shares as whole percentages, and a small one as <1%', () => {
    expect([0, 0.004, 0.005, 0.5, 1].map(percentText)).toEqual(['0%', '<1%', '1%', '50%', '100%']);
  });
});
