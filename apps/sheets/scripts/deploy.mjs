// `pnpm --filter @enrich/sheets push` (not `deploy`, a pnpm command of its own): builds dist/ and pushes it to your Apps Script project with
// clasp (@google/clasp 3.4, which runs on Node 20). Not run in CI: it needs `clasp login` and a
// project of yours. Extra arguments go to `clasp push` (e.g. `-- --force` to replace a manifest
// edited online).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLASP = '@google/clasp@3.4.1';
const root = join(import.meta.dirname, '..');
const fail = (message) => {
  process.stderr.write(`deploy: ${message}\n`);
  process.exit(1);
};

const claspFile = join(root, '.clasp.json');
if (!existsSync(claspFile))
  fail(
    'no .clasp.json: copy .clasp.json.example to .clasp.json and put your scriptId in it, or make a new ' +
      `spreadsheet with its script here: npx --yes ${CLASP} create-script --type sheets --title Enrich --rootDir dist`,
  );
const clasp = JSON.parse(readFileSync(claspFile, 'utf8'));
if (!clasp.scriptId || clasp.scriptId.startsWith('PUT-'))
  fail('.clasp.json has no scriptId of yours yet (see .clasp.json.example).');
// clasp pushes everything under rootDir: it must be the build output and nothing else.
if (clasp.rootDir !== 'dist') fail(`.clasp.json must say "rootDir": "dist" (it says ${clasp.rootDir}).`);

execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
for (const file of ['Code.js', 'sidebar.html', 'appsscript.json']) {
  if (!existsSync(join(root, 'dist', file))) fail(`the build wrote no dist/${file}.`);
}

// npx runs the pinned clasp without adding it (and googleapis) to the workspace's dependencies.
const args = process.argv.slice(2).filter((arg) => arg !== '--');
execFileSync('npx', ['--yes', CLASP, 'push', ...args], { cwd: root, stdio: 'inherit' });
process.stdout.write(
  'Pushed dist/ to the Apps Script project. Reload the spreadsheet it is bound to: Extensions > Enrich ' +
    'appears. (A standalone project: Deploy > Test deployments > Editor add-on.)\n',
);
