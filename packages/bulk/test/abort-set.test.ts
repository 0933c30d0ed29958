import { describe, expect, it } from 'vitest';
import { AbortSet } from '../src/sending/abort-set.js';

describe('AbortSet', () => {
  it('calls every waiter still listed once on abort, and none that was forgotten', () => {
    const controller = new AbortController();
    const set = new AbortSet(controller.signal);
    const called: string[] = [];
    const forgetA = set.add(() => called.push('a'));
    const forgetB = set.add(() => called.push('b'));
    set.add(() => called.push('c'));
    const forgetD = set.add(() => called.push('d'));
    expect(forgetB()).toBe(true);
    expect(forgetB()).toBe(false);
    expect(forgetD()).toBe(true);
    controller.abort();
    expect(called.sort()).toEqual(['a', 'c']);
    // After the abort nothing is listed: forgetting is a no-op, a new waiter is called at once.
    expect(forgetA()).toBe(false);
    set.add(() => called.push('e'));
    expect(called).toContain('e');
    expect(set.aborted).toBe(true);
  });

  it('a waiter that forgets another during the abort does not stop it being called', () => {
    const controller = new AbortController();
    const set = new AbortSet(controller.signal);
    const called: string[] = [];
    let forgetSecond = () => false;
    set.add(() => {
      called.push('first');
      forgetSecond();
    });
    forgetSecond = set.add(() => called.push('second'));
    controller.abort();
    expect(called.sort()).toEqual(['first', 'second']);
  });

  it('without a signal it lists and forgets, and is never aborted', () => {
    const set = new AbortSet(undefined);
    const forget = set.add(() => {
      throw new Error('never called');
    });
    expect(set.aborted).toBe(false);
    expect(forget()).toBe(true);
  });
});
