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

  it('knows no spread until a few answers under their medians came', () => {
    const noise = new LatencyNoise();
    noise.addRound([100, 50, 200], 100);
    expect(noise.sigma).toBe(0);
    expect(noise.tolerance(10, 0)).toBe(1.05);
  });
});
