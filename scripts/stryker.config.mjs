// StrykerJS's configuration for one module of one package (`pnpm mutate`, see scripts/mutate.mjs).
// Read in the package's folder, with MUTATE_MODULE naming an entry of its mutation.json: the files
// to mutate and the test files that cover them. One module at a time, one test process (the
// machine's two CPUs are shared), incremental: a run retests only the mutants whose code or
// covering tests changed since the result kept in mutation/<module>.incremental.json.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const name = process.env.MUTATE_MODULE;
const modules = JSON.parse(readFileSync('mutation.json', 'utf8')).modules;
const module = modules[name];
if (!module) throw new Error(`MUTATE_MODULE: no module "${name}" in mutation.json`);

export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: {
    // Only the listed test files run (the vitest config reads them from MUTATE_TESTS).
    configFile: fileURLToPath(new URL('./vitest.mutate.config.mjs', import.meta.url)),
    related: false,
  },
  coverageAnalysis: 'perTest',
  concurrency: 1,
  mutate: module.mutate,
  // A module-level constant is mutated like any other code, at the price of a full test run each.
  ignoreStatic: module.ignoreStatic ?? false,
  timeoutMS: module.timeoutMS ?? 5000,
  // A package whose tests load a build of the sources (Sheets' dist/) builds it from the mutated ones.
  ...(module.buildCommand ? { buildCommand: module.buildCommand } : {}),
  incremental: true,
  incrementalFile: `mutation/${name}.incremental.json`,
  reporters: ['clear-text', 'progress-append-only', 'html'],
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, maxTestsToLog: 0 },
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  thresholds: { high: 90, low: 80, break: null },
  // What the sandbox copy of the package leaves out: builds, reports, Stryker's own files.
  ignorePatterns: ['dist', 'reports', 'test-results', 'coverage', '*.vsix', 'mutation'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
