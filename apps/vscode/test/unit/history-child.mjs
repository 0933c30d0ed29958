// A change of the History file in a process of its own, as another VS Code window's extension host
// makes it, for history-file.test.ts (which kills it, or runs two at once). Run with
// `node --import tsx`. ENRICH_TEST_FOLDER is the global storage folder; ENRICH_TEST_MODE is:
// - "forget": one rewrite without the entries holding ENRICH_TEST_PHONE; says "reading" when it
//   starts and "renaming" once the new content is synced, just before the rename; with
//   ENRICH_TEST_PAUSE=1 it then waits there (to be killed at that very point);
// - "add": ENRICH_TEST_COUNT entries added one change each, with ids ENRICH_TEST_PREFIX-<i>, from
//   the time ENRICH_TEST_START_AT (epoch ms), so that two of them add at once.
// Says "done" at the end.
import { writeSync } from 'node:fs';
import { HistoryFile } from '../../src/history-file.ts';

const say = (word) => writeSync(1, `${word}\n`);
const env = process.env;

if (env.ENRICH_TEST_MODE === 'forget') {
  const file = new HistoryFile(env.ENRICH_TEST_FOLDER, {
    beforeRename: () => {
      say('renaming');
      if (env.ENRICH_TEST_PAUSE === '1') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
    },
  });
  say('reading');
  await file.change((entries) =>
    entries.filter((entry) => !JSON.stringify(entry).includes(env.ENRICH_TEST_PHONE)),
  );
} else {
  const file = new HistoryFile(env.ENRICH_TEST_FOLDER, { lockWaitMs: 30_000 });
  await new Promise((resolve) => setTimeout(resolve, Number(env.ENRICH_TEST_START_AT ?? 0) - Date.now()));
  for (let i = 0; i < Number(env.ENRICH_TEST_COUNT); i++) {
    await file.change((entries) => [{ id: `${env.ENRICH_TEST_PREFIX}-${i}` }, ...entries]);
  }
}
say('done');
