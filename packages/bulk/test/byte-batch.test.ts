// The batches the output file and the aside files write (byte-batch.ts): everything in order,
// nothing cut, no batch over its size, and a batch handed on never written to again.
import { describe, expect, it } from 'vitest';
import { ByteBatch } from '../src/run/byte-batch.js';

function batches(size: number) {
  const taken: Buffer[] = [];
  const copies: string[] = [];
  const batch = new ByteBatch(size, (bytes) => {
    taken.push(bytes);
    copies.push(bytes.toString('latin1'));
  });
  const all = () => Buffer.concat(taken).toString('utf8');
  return { batch, taken, copies, all };
}

describe('ByteBatch', () => {
  it('hands on text and bytes in the order they came, in batches no larger than its size', () => {
    const { batch, taken, all } = batches(16);
    const pieces: (string | Buffer)[] = [
      'id,name\n',
      Buffer.from('1,Ann\n'),
      '2,Bob\n',
      Buffer.from('3,Cy\n'),
    ];
    for (let i = 0; i < 5; i++)
      for (const p of pieces) typeof p === 'string' ? batch.text(p) : batch.bytes(p);
    expect(batch.length).toBeGreaterThan(0);
    batch.flush();
    expect(batch.length).toBe(0);
    expect(all()).toBe(pieces.map(String).join('').repeat(5));
    expect(taken.every((b) => b.length <= 16 && b.length > 0)).toBe(true);
  });

  it('never cuts a character: text of 3-byte characters near the end of a batch goes whole to the next', () => {
    const { batch, taken, all } = batches(16);
    batch.text('x'.repeat(11));
    // Three characters but nine bytes: they do not fit in the five bytes left.
    batch.text('€€€');
    batch.text('😀é');
    batch.flush();
    expect(all()).toBe(`${'x'.repeat(11)}€€€😀é`);
    expect(taken.map((b) => b.length)).toEqual([11, 15]);
  });

  it('text or bytes longer than a batch go on their own, after what was held', () => {
    const { batch, all, taken } = batches(8);
    batch.text('ab');
    batch.text('é'.repeat(10));
    batch.bytes(Buffer.from('0123456789'));
    batch.text('z');
    batch.flush();
    expect(all()).toBe(`ab${'é'.repeat(10)}0123456789z`);
    expect(taken.map((b) => b.length)).toEqual([2, 20, 10, 1]);
  });

  it('copies the bytes it is given, and never writes again into a batch it handed on', () => {
    const { batch, taken, copies } = batches(8);
    const mine = Buffer.from('abcd');
    batch.bytes(mine);
    mine.fill(0x2d);
    batch.text('efgh');
    batch.text('ijkl');
    const big = Buffer.from('0123456789');
    batch.bytes(big);
    big.fill(0x2d);
    batch.text('mnop');
    batch.flush();
    expect(taken.map((b) => b.toString('latin1'))).toEqual(copies);
    expect(copies).toEqual(['abcdefgh', 'ijkl', '0123456789', 'mnop']);
  });
});
