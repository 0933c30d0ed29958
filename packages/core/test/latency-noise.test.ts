// The service's own spread (latency-noise.ts): measured within each round, so that a queue's climb
// from one round to the next is not taken for noise.
import { describe, expect, it } from 'vitest';
import { LatencyNoise } from '../src/pace/latency-noise.js';

/** Standard normals from a fixed seed (a small LCG and Box-Muller): the same on every run. */
function normals(count: number, seed = 7): number[] {
  let state = seed;
  const uniform = () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
  return Array.from(
    { length: count },
    () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform()),
  );
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;

describe('LatencyNoise', () => {
  it('measures a log-normal spread from rounds of answers', () => {
    for (const sigma of [0.25, 0.5, 1]) {
      const noise = new LatencyNoise();
      const z = normals(400);
      for (let round = 0; round < 20; round++) {
        const latencies = z.slice(round * 20, round * 20 + 20).map((x) => 120 * Math.exp(sigma * x));
        noise.addRound(latencies, median(latencies));
      }
      expect(noise.sigma, `σ ${sigma}`).toBeGreaterThan(0.8 * sigma);
      expect(noise.sigma, `σ ${sigma}`).toBeLessThan(1.2 * sigma);
    }
  });

  it('takes no climb from round to round for noise: each round doubles, its own answers close together', () => {
    const noise = new LatencyNoise();
    const z = normals(80);
    for (let round = 0; round < 4; round++) {
      const level = 40 * 2 ** round;
      const latencies = z.slice(round * 20, round * 20 + 20).map((x) => level * Math.exp(0.05 * x));
      noise.addRound(latencies, median(latencies));
    }
    expect(noise.sigma).toBeLessThan(0.08);
  });

  it('knows no spread until eight answers under their medians came', () => {
    const noise = new LatencyNoise();
    // Seven answers at half the median, one at it, one over it: seven deviations of log 2.
    noise.addRound([50, 50, 50, 50, 50, 50, 50, 100, 200], 100);
    expect(noise.sigma).toBe(0);
    expect(noise.tolerance(10, 0)).toBe(1.05);
    noise.addRound([50, 100], 100);
    expect(noise.sigma).toBeCloseTo(1.4826 * Math.log(2), 6);
  });

  it('an answer at the median is no deviation below it', () => {
    const noise = new LatencyNoise();
    noise.addRound([...Array(8).fill(50), ...Array(9).fill(100)], 100);
    expect(noise.sigma).toBeCloseTo(1.4826 * Math.log(2), 6);
  });

  it('the median deviation: the middle one of an odd count, not the mean of two', () => {
    const noise = new LatencyNoise();
    const below = (d: number) => 100 * Math.exp(-d);
    noise.addRound([0.1, 0.1, 0.1, 0.1, 0.5, 0.9, 0.9, 0.9, 0.9].map(below), 100);
    expect(noise.sigma).toBeCloseTo(1.4826 * 0.5, 6);
    // And of an even count, the mean of the two in the middle.
    noise.addRound([0.1, 0.1, 0.2, 0.2, 0.6, 0.9, 0.9].map(below), 100);
    expect(noise.sigma).toBeCloseTo(1.4826 * ((0.2 + 0.5) / 2), 6);
  });

  it('forgets the oldest: the spread of the last 256 deviations', () => {
    const noise = new LatencyNoise();
    const z = normals(1200);
    const rounds = (sigma: number, from: number, count: number) => {
      for (let round = 0; round < count; round++) {
        const at = from + round * 20;
        const latencies = z.slice(at, at + 20).map((x) => 120 * Math.exp(sigma * x));
        noise.addRound(latencies, median(latencies));
      }
    };
    rounds(1, 0, 26);
    // About ten deviations a round: 30 rounds are over 256 of them.
    rounds(0.1, 520, 30);
    expect(noise.sigma).toBeLessThan(0.13);
  });

  it('a baseline measured on many answers strays less than one median: a smaller tolerance', () => {
    const noise = new LatencyNoise();
    noise.addRound([60, 70, 80, 85, 90, 92, 95, 97, 100, 120], 100);
    expect(noise.tolerance(10, 100)).toBeLessThan(noise.tolerance(10, 0));
  });
});
