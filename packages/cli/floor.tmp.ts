import { createFetchTransport } from '@enrich/core/fetch-transport';

const url = process.argv[2];
const t = createFetchTransport();
const N = 10000;
let next = 0;
const start = performance.now();
const cpu0 = process.cpuUsage();
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < N) {
      const i = next++;
      await t({
        method: 'POST',
        url: `${url}/v3/lookup/phone`,
        headers: { 'x-api-key': 'sandbox-demo-key', 'Content-Type': 'application/json' },
        body: JSON.stringify({ Phone: `555${String(2000000 + i)}` }),
      });
    }
  }),
);
const wall = performance.now() - start;
const cpu = process.cpuUsage(cpu0);
console.log(
  'wall',
  (wall / 1000).toFixed(1),
  'ideal',
  ((N * 50) / 32 / 1000).toFixed(1),
  'eff',
  ((N * 50) / 32 / wall).toFixed(3),
  'cpu ms/req',
  ((cpu.user + cpu.system) / 1000 / N).toFixed(3),
);
