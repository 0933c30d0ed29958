// The pacing section of `pnpm bench` (issues 22 and 36): enrich against the sandbox's service
// families (pacing-families.ts), with its default settings (--concurrency auto) and with each fixed
// --concurrency of 8, 16, 32 and 64, one after another against one sandbox process per family
// (configured back to the family's model and reset before each run). What is compared is the
// default's throughput with the best fixed setting's, measured in the same run on the same machine:
// the answer to "would a user who tried every number have done better?", which holds whatever the
// machine's load. For each run, from the sandbox's own stats: answers per second (refusals, 429 and
// 503, not counted), that over the ceiling the service allows, and the share of requests refused;
// from enrich's summary, whether every row was answered. A fixed setting still running after 1.5
// times the family's work is interrupted (Ctrl-C) and measured on what it did: a number that slow
// is not the best one; the default runs to its end (at most DEFAULT_CAP_MS), as a user's would.
// Each enrich gets a home of its own: nothing learnt by one run carries over to the next.
import { once } from 'node:events';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { FAMILIES, type Family } from './pacing-families.js';
import { enrich, type Run, type Sandbox, type SandboxStats, startSandbox } from './processes.js';

/** A default run still going after this long is interrupted, and said to be. */
const DEFAULT_CAP_MS = 60_000;
const FIXED_CAP_FACTOR = 1.5;

interface Setting {
  readonly name: string;
  readonly args: readonly string[];
  /** The tag of an earlier run whose homes (and so remembered pace) this one takes over. */
  readonly homeOf?: string;
}

const DEFAULT_SETTING: Setting = { name: 'default', args: [] };
const FIXED_CONCURRENCIES = [8, 16, 32, 64] as const;
const SETTINGS: readonly Setting[] = [
  // First, against a service no run has touched yet.
  DEFAULT_SETTING,
  ...FIXED_CONCURRENCIES.map((n) => ({ name: `--concurrency ${n}`, args: ['--concurrency', String(n)] })),
];

export interface RunFigures {
  readonly setting: string;
  /** Answers (not 429 or 503) per second, from the sandbox's first request to its last answer. */
  readonly answersPerSecond: number;
  /** Answers over what the service allowed in the same time. */
  readonly ofCeiling: number;
  /** 429 and 503 answers over all requests the sandbox received. */
  readonly refused: number;
  /** Every process ran to its end, with every row answered (ok or no match) and none in error or unsent. */
  readonly everyRowAnswered: boolean;
  /** False when the run was interrupted at its cap. */
  readonly finished: boolean;
  readonly pace: string;
}

export interface FamilyResult {
  readonly family: Family;
  readonly rows: number;
  readonly byDefault: RunFigures;
  readonly fixed: readonly RunFigures[];
  /** The fixed setting with the most answers per second. */
  readonly best: RunFigures;
  /** The defaults again, right after their first run, from the pace it remembered. */
  readonly secondRun?: RunFigures;
}

async function writePhones(path: string, count: number, offset: number): Promise<void> {
  const out = createWriteStream(path);
  out.write('id,phone\n');
  for (let i = 0; i < count; i++) {
    if (!out.write(`${i},555${String(2_000_000 + offset + i).padStart(7, '0')}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

type PaceInSummary = { concurrency: number; ratePerSecond?: number } | undefined;

/** Whether a run's summary says every one of its `rows` rows was answered. */
function answeredAll(run: Run, rows: number): boolean {
  const s = run.summary;
  const answered = Number(s.ok) + Number(s.noMatch);
  return s.completed === true && Number(s.errors) === 0 && Number(s.notSent) === 0 && answered === rows;
}

function paceText(runs: readonly Run[]): string {
  return runs
    .map((run) => {
      const pace = run.summary.pace as unknown as PaceInSummary;
      if (!pace) return '';
      return `up to ${pace.concurrency} at a time${pace.ratePerSecond ? `, ${pace.ratePerSecond}/s` : ''}`;
    })
    .join('; ');
}

/** One setting against the family's service: each process on its own share of the rows. */
async function runSetting(
  dir: string,
  sandbox: Sandbox,
  family: Family,
  inputs: readonly { name: string; rows: number }[],
  setting: Setting,
  tag: string,
): Promise<RunFigures> {
  await sandbox.configure(family.model);
  await sandbox.reset();
  if (family.windowMs !== undefined) await sleep(family.windowMs - (Date.now() % family.windowMs));
  const fixed = setting.args.length > 0;
  const capMs = fixed ? family.workSeconds * 1000 * FIXED_CAP_FACTOR : DEFAULT_CAP_MS;
  const running = inputs.map(({ name }, i) => {
    // Two processes of one user on one machine share a home (and so the cache folder where runs
    // on one service and key hear each other end: bulk's pace-neighbours.ts).
    const home = join(dir, `${setting.homeOf ?? tag}.home`);
    mkdirSync(home, { recursive: true });
    const args = ['--in', `${name}.csv`, '--out', `${tag}-${i}.out.csv`, '--cache', `${tag}-${i}.cache`];
    return enrich(sandbox, dir, [...args, ...setting.args], {
      interruptAfterMs: capMs,
      env: { HOME: home, ENRICH_LEDGER: join(home, 'ledger.jsonl') },
    });
  });
  const change = family.change;
  const timer = change ? setTimeout(() => void sandbox.configure(change.knobs), change.atMs) : undefined;
  const runs = await Promise.all(running);
  clearTimeout(timer);
  const stats: SandboxStats = await sandbox.stats();
  const refused = stats.throttled + stats.overloaded;
  const answered = stats.requests - refused;
  // The sandbox's own figure spans its first request to its last answer: enrich's start-up is not
  // the service's pace.
  const wallMs = Math.max(...runs.map((r) => r.wallMs));
  const seconds = stats.answersPerSecond > 0 ? answered / stats.answersPerSecond : wallMs / 1000;
  return {
    setting: setting.name,
    answersPerSecond: answered / seconds,
    ofCeiling: answered / family.allowedBy(seconds * 1000),
    refused: stats.requests > 0 ? refused / stats.requests : 0,
    everyRowAnswered: runs.every((run, i) => answeredAll(run, inputs[i]?.rows ?? Number.NaN)),
    finished: runs.every((run) => run.code !== 130),
    pace: paceText(runs),
  };
}

/** Every family with every setting, one after another; `log` tells where it is. */
export async function pacingBench(dir: string, log: (text: string) => void): Promise<FamilyResult[]> {
  const results: FamilyResult[] = [];
  // BENCH_PACING=800 runs the families whose name holds "800" only.
  const only = process.env.BENCH_PACING;
  // BENCH_PACING_WORK=30 gives every family 30 s of work (issue 22 measured its services so).
  const work = Number(process.env.BENCH_PACING_WORK ?? '');
  const families = FAMILIES.map((f) => (work > 0 ? { ...f, workSeconds: work } : f));
  let index = 0;
  for (const family of families.filter((f) => only === undefined || f.name.includes(only))) {
    const rows = Math.round(family.perSecond * family.workSeconds);
    // With two processes, each takes half (the last one what is left).
    const share = Math.floor(rows / family.processes);
    const inputs = Array.from({ length: family.processes }, (_, i) => ({
      name: `pace-${index}-${i}`,
      rows: i === family.processes - 1 ? rows - share * i : share,
    }));
    for (const [i, input] of inputs.entries()) {
      await writePhones(join(dir, `${input.name}.csv`), input.rows, index * 100_000 + i * 50_000);
    }
    const sandbox = await startSandbox({ ...family.model });
    try {
      const figures: RunFigures[] = [];
      for (const setting of SETTINGS) {
        const run = await runSetting(
          dir,
          sandbox,
          family,
          inputs,
          setting,
          `pace-${index}-${figures.length}`,
        );
        figures.push(run);
        log(
          `pacing: ${family.name}, ${setting.name}: ${run.answersPerSecond.toFixed(1)} answers/s, ` +
            `${run.ofCeiling.toFixed(3)} of the ceiling, ${(100 * run.refused).toFixed(1)} % refused, ` +
            `${run.everyRowAnswered ? 'every row answered' : 'NOT every row answered'}${run.finished ? '' : ' (interrupted)'}`,
        );
      }
      const [byDefault, ...fixed] = figures as [RunFigures, ...RunFigures[]];
      const best = fixed.reduce((a, b) => (b.answersPerSecond > a.answersPerSecond ? b : a));
      const again = { ...DEFAULT_SETTING, name: 'default, second run', homeOf: `pace-${index}-0` };
      const secondRun = family.secondRun
        ? await runSetting(dir, sandbox, family, inputs, again, `pace-${index}-again`)
        : undefined;
      if (secondRun) {
        log(
          `pacing: ${family.name}, ${again.name}: ${secondRun.answersPerSecond.toFixed(1)} answers/s, ` +
            `${secondRun.ofCeiling.toFixed(3)} of the ceiling (${secondRun.pace})`,
        );
      }
      results.push({ family, rows, byDefault, fixed, best, ...(secondRun ? { secondRun } : {}) });
    } finally {
      sandbox.process.kill('SIGTERM');
    }
    index++;
  }
  return results;
}

/** Target of issue 22 (its services): default settings reach 0.9 of the ceiling with at most 2 % refused. */
function issue22TargetMet(run: RunFigures): boolean {
  return run.ofCeiling >= 0.9 && run.refused <= 0.02;
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;

/** The section's table: a header and a line per family. */
export function pacingTable(results: readonly FamilyResult[]): string[][] {
  const header = [
    '',
    'service',
    'rows',
    'default: answers/s (of the ceiling)',
    `fixed ${FIXED_CONCURRENCIES.join(' / ')}: answers/s`,
    'default / best fixed',
    'refused: default / best',
    'every row answered (default)',
    "default's pace at the end",
    'issue 22 target',
  ];
  const lines = results.map(({ family, rows, byDefault, fixed, best, secondRun }) => [
    family.key,
    family.name,
    String(rows),
    `${byDefault.answersPerSecond.toFixed(1)} (${byDefault.ofCeiling.toFixed(3)})${byDefault.finished ? '' : ' stopped'}` +
      (secondRun
        ? `; second run ${secondRun.answersPerSecond.toFixed(1)} (${secondRun.ofCeiling.toFixed(3)})`
        : ''),
    fixed.map((f) => `${f.answersPerSecond.toFixed(1)}${f === best ? '*' : ''}`).join(' / '),
    (byDefault.answersPerSecond / best.answersPerSecond).toFixed(3),
    `${pct(byDefault.refused)} / ${pct(best.refused)}`,
    byDefault.everyRowAnswered ? 'yes' : 'NO',
    byDefault.pace,
    family.key === '22' ? (issue22TargetMet(byDefault) ? 'met' : 'NOT met') : '',
  ]);
  return [header, ...lines];
}
