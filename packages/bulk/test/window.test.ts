import { describe, expect, it } from 'vitest';
import { OrderedWindow, type Pending } from '../src/run/window.js';

type Result = { readonly value: string };
const isPending = (v: Result | Pending<Result>): v is Pending<Result> => !('value' in v);

describe('OrderedWindow', () => {
  it('writes rows in the order they went in, whatever order their results arrive in', () => {
    const window = new OrderedWindow<number, Result>(10);
    const written: number[] = [];
    const write = (row: number) => written.push(row);
    const a: Pending<Result> = { result: undefined };
    const b: Pending<Result> = { result: undefined };
    window.push(1, a);
    window.push(2, { value: 'known' });
    window.push(3, b);
    window.push(4, a); // a second row of the same request
    window.drain(write, isPending);
    expect(written).toEqual([]);
    b.result = { value: 'b' };
    window.drain(write, isPending);
    expect(written).toEqual([]); // row 1 still waits
    a.result = { value: 'a' };
    window.drain(write, isPending);
    expect(written).toEqual([1, 2, 3, 4]);
    expect(window.size).toBe(0);
  });

  it('hands each row its own result, the shared one for rows of one request', () => {
    const window = new OrderedWindow<string, Result>(10);
    const shared: Pending<Result> = { result: undefined };
    window.push('x', shared);
    window.push('y', { value: 'own' });
    window.push('z', shared);
    shared.result = { value: 'shared' };
    const seen: string[] = [];
    window.drain((row, result) => seen.push(`${row}=${result.value}`), isPending);
    expect(seen).toEqual(['x=shared', 'y=own', 'z=shared']);
  });

  it('is full at its capacity, and has room again once the front drains', () => {
    const window = new OrderedWindow<number, Result>(2);
    const first: Pending<Result> = { result: undefined };
    window.push(1, first);
    expect(window.isFull).toBe(false);
    window.push(2, { value: 'b' });
    expect(window.isFull).toBe(true);
    window.drain(() => undefined, isPending);
    expect(window.isFull).toBe(true); // row 1 still waits
    first.result = { value: 'a' };
    window.drain(() => undefined, isPending);
    expect(window.size).toBe(0);
  });

  it('keeps its memory bounded over many rows (compacts the written front)', () => {
    const window = new OrderedWindow<number, Result>(100);
    const done = { value: 'v' };
    let count = 0;
    for (let i = 0; i < 50_000; i++) {
      window.push(i, done);
      window.drain(() => count++, isPending);
    }
    expect(count).toBe(50_000);
    expect(window.size).toBe(0);
    // The internal arrays were compacted: they do not hold 50,000 slots.
    expect((window as unknown as { items: unknown[] }).items.length).toBeLessThan(10_000);
  });
});
