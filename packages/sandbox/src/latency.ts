// A service's latency as a distribution: log-normal, given its median and its 99th percentile (or
// its σ, the standard deviation of the latency's logarithm: the same spread said another way), as
// latencies of real services are (most answers near the median, a long tail of slow ones). Drawn
// from a seeded sequence, so a run is repeatable. The two ways to say the spread are tied here, once.

/** The standard normal distribution's 99th percentile. */
export const Z_99 = 2.3263478740408408;

/** The σ of the log-normal with this median and this p99; 0 for a fixed latency (a p99 not above a median above 0). */
export function sigmaOf(medianMs: number, p99Ms: number): number {
  if (!(medianMs > 0) || !(p99Ms > medianMs) || !Number.isFinite(p99Ms)) return 0;
  return Math.log(p99Ms / medianMs) / Z_99;
}

/** The p99 of the log-normal with this median and this σ (the median itself when σ is 0). */
export function p99Of(medianMs: number, sigma: number): number {
  return medianMs * Math.exp(sigma * Z_99);
}

/**
 * One service time (ms): the median itself when the p99 is not above it (a fixed latency, and no
 * draw from `random`), otherwise a draw from the log-normal with that median and that p99.
 */
export function drawLatency(medianMs: number, p99Ms: number, random: () => number): number {
  const sigma = sigmaOf(medianMs, p99Ms);
  if (sigma === 0) return medianMs;
  return medianMs * Math.exp(sigma * standardNormal(random));
}

/** Box-Muller: a standard normal draw from two uniform ones in [0, 1). */
function standardNormal(random: () => number): number {
  const u1 = 1 - random(); // (0, 1]: its logarithm is finite
  const u2 = random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}
