import { getOperation, validateField } from '@enrich/core';
import { beforeEach, describe, expect, it } from 'vitest';
import { askInput } from '../../src/input/flow';
import { prefillFor } from '../../src/input/selection';
import { reply, resetStub, ui } from '../vscode-stub';

beforeEach(() => resetStub());

describe('the quick input of an operation', () => {
  it('normalises what is typed: a formatted phone number becomes ten digits', async () => {
    reply({ type: '(555) 010-2030' });
    await expect(askInput(getOperation('phone-lookup'))).resolves.toEqual({ Phone: '5550102030' });
  });

  it("refuses an invalid phone in the box with core's message, and takes the corrected one", async () => {
    const op = getOperation('phone-lookup');
    reply({ type: '555010203' }, { type: '5550102030' });
    await expect(askInput(op)).resolves.toEqual({ Phone: '5550102030' });
    const refused = validateField(op, 'Phone', '555010203');
    expect(refused.ok).toBe(false);
    expect(ui.seen.map((s) => s.validationMessage)).toEqual([
      refused.ok ? 'unreachable' : refused.message,
      undefined,
    ]);
  });

  it('refuses a blank required field with the rule message', async () => {
    reply({ type: '' }, { type: 'jane@example.com' });
    await expect(askInput(getOperation('email-lookup'))).resolves.toEqual({ Email: 'jane@example.com' });
    expect(ui.seen[0]?.validationMessage).toBe('Email is required');
  });

  it('asks Auto Append which input first, then only that', async () => {
    reply({ pick: 'E-mail' }, { type: 'Jane.Doe@Example.COM' });
    await expect(askInput(getOperation('auto-append'))).resolves.toEqual({ Email: 'Jane.Doe@example.com' });
    expect(ui.seen.map((s) => [s.kind, s.step, s.totalSteps])).toEqual([
      ['pick', 1, 2],
      ['input', 2, 2],
    ]);
    expect(ui.seen[0]?.items).toEqual(['Phone', 'E-mail', 'Full name + Address line 1 + ZIP code']);
  });

  it('goes back from a field to the choice, and forgets the abandoned branch', async () => {
    reply(
      { pick: 'Phone' },
      { back: true },
      { pick: 'Full name + Address line 1 + ZIP code' },
      { type: 'Jane Doe' },
      { type: '12 Main St' },
      { type: '2134' },
    );
    await expect(askInput(getOperation('auto-append'))).resolves.toEqual({
      FullName: 'Jane Doe',
      Address1: '12 Main St',
      Zip: '02134',
    });
  });

  it('lets optional fields be skipped and keeps bounds per operation', async () => {
    const op = getOperation('phone-append');
    reply(
      { type: 'Jane' },
      { type: 'A'.repeat(16) },
      { type: 'Doe' },
      { type: '12 Main St' },
      { type: '02134' },
    );
    await expect(askInput(op)).resolves.toEqual({
      FName: 'Jane',
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: '02134',
    });
    expect(ui.seen[1]?.validationMessage).toBe('LName must be at most 15 characters; got 16');
  });

  it('asks ID Verify to tick what it has, and refuses an empty tick', async () => {
    reply(
      { accept: true },
      { pick: ['Phone', 'E-mail'] },
      { type: '5550102030' },
      { type: 'jane@example.com' },
    );
    await expect(askInput(getOperation('id-verify'))).resolves.toEqual({
      Phone: '5550102030',
      Email: 'jane@example.com',
    });
  });

  it('is cancelled by Escape, with nothing returned', async () => {
    reply({ pick: 'Phone' }, { cancel: true });
    await expect(askInput(getOperation('auto-append'))).resolves.toBeUndefined();
  });

  it('prefills from a selected phone number, offering its group first', async () => {
    const op = getOperation('auto-append');
    const prefill = prefillFor(op, ' 555.010.2030 ');
    expect(prefill).toEqual({ Phone: '5550102030' });
    reply({ accept: true }, { accept: true });
    await expect(askInput(op, prefill)).resolves.toEqual({ Phone: '5550102030' });
    expect(ui.seen[0]?.active).toEqual(['Phone']);
    expect(ui.seen[1]?.value).toBe('5550102030');
  });

  it('prefills only from text that core accepts as a phone or an e-mail address', () => {
    const op = getOperation('id-verify');
    expect(prefillFor(op, 'jane@example.com')).toEqual({ Email: 'jane@example.com' });
    expect(prefillFor(op, 'Jane Doe')).toEqual({});
    expect(prefillFor(op, '12345')).toEqual({});
    expect(prefillFor(op, '5550102030\n5550102031')).toEqual({});
  });
});
