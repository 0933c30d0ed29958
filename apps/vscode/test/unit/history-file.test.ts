// The History's own file (history-file.ts; issue 38): an earlier version's globalState History moved
// into it once on activation; a rewrite killed at any moment (SIGKILL of a child process, at random
// times and right before its rename) leaving the old file or the new one, whole; the next change
// taking over the dead writer's lock and deleting what it left aside; two processes (two windows)
// adding at once losing nothing; a person removed leaving no byte of them in the folder.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forgetEverywhere } from '@enrich/bulk';
import { IdentityMatcher, identitiesOf, KEY_HIDDEN } from '@enrich/core';
import { afterEach, describe, expect, it } from 'vitest';
import type * as vscode from 'vscode';
import { byteScan } from '../../../../packages/bulk/test/byte-scan';
import { activate } from '../../src/extension';
import { HISTORY_STATE_KEY, History, type HistoryEntry } from '../../src/history';
import { HISTORY_FILE, HistoryFile } from '../../src/history-file';
import { HISTORY_VIEW } from '../../src/manifest';
import type { HistoryTree } from '../../src/tree/history';
import { createExtensionContext, resetStub, Uri, ui } from '../vscode-stub';
import { storedHistory, tempDir } from './harness';

const CHILD = fileURLToPath(new URL('./history-child.mjs', import.meta.url));
const PERSON = '5550136174';
const OTHER = '5550149988';

/** A paid Phone Lookup as the History keeps it; `pad` makes its raw body that many characters longer. */
function entryFor(phone: string, at: number, pad = 0): HistoryEntry {
  const record = { Phone: phone, FirstName: 'Jane', LastName: 'Doe' };
  return {
    id: `${at.toString(36)}-${phone}`,
    operationId: 'phone-lookup',
    input: { Phone: phone },
    at,
    durationMs: 12,
    attempts: 1,
    outcome: {
      kind: 'record',
      status: 200,
      record,
      extra: {},
      mismatches: [],
      raw: JSON.stringify({ ...record, Note: 'n'.repeat(pad) }),
    },
    paid: true,
    request: {
      method: 'POST',
      url: 'http://127.0.0.1:8787/v3/lookup/phone',
      headers: { 'x-api-key': KEY_HIDDEN },
      body: JSON.stringify({ Phone: phone }),
    },
  };
}

const contexts: ReturnType<typeof createExtensionContext>[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const context of contexts.splice(0)) for (const d of context.subscriptions.splice(0)) d.dispose();
  // A child a failed test left waiting before its rename.
  for (const child of children.splice(0)) child.kill('SIGKILL');
});

/** Activates the extension (no call made, so no sandbox) with what an earlier session left. */
async function activateWith(
  legacy: readonly HistoryEntry[] | undefined,
  storage = tempDir('enrich-vscode-storage-'),
) {
  resetStub();
  const context = { ...createExtensionContext(), globalStorageUri: Uri.file(storage) };
  if (legacy) await context.globalState.update(HISTORY_STATE_KEY, legacy);
  contexts.push(context);
  await activate(context as unknown as vscode.ExtensionContext);
  return context;
}

const listed = () => {
  const tree = ui.trees.get(HISTORY_VIEW) as HistoryTree;
  return tree.getChildren().map((entry) => entry.input.Phone);
};

describe('the History moved out of globalState', () => {
  it('moves an earlier version’s History into the file on activation, then clears the key', async () => {
    const legacy = [entryFor(PERSON, 3_000), entryFor(OTHER, 2_000)];
    const context = await activateWith(legacy);
    expect(storedHistory(context)).toEqual(legacy);
    expect(context.globalState.keys()).not.toContain(HISTORY_STATE_KEY);
    expect(context.globalState.dump()).not.toContain(PERSON);
    expect(listed()).toEqual([PERSON, OTHER]);
  });

  it('moved twice (a crash before the key was cleared), nothing is doubled; newest first', async () => {
    const storage = tempDir('enrich-vscode-storage-');
    const moved = [entryFor(PERSON, 3_000), entryFor(OTHER, 2_000)];
    await new HistoryFile(storage).change(() => [entryFor('5550170000', 4_000), ...moved]);
    const context = await activateWith([...moved, entryFor('5550160000', 1_000)], storage);
    expect(storedHistory(context).map((e) => e.input.Phone)).toEqual([
      '5550170000',
      PERSON,
      OTHER,
      '5550160000',
    ]);
    expect(context.globalState.keys()).not.toContain(HISTORY_STATE_KEY);
  });

  it('does not bring back a person forgotten meanwhile (enrich forget): moved, then purged', async () => {
    const read = identitiesOf({ Phone: PERSON });
    if (!read.ok) throw new Error(read.message);
    await forgetEverywhere(
      { dataDir: process.env.ENRICH_DATA_DIR ?? '', cacheDir: tempDir('c-') },
      read.identities,
    );
    const context = await activateWith([entryFor(PERSON, 3_000), entryFor(OTHER, 2_000)]);
    expect(storedHistory(context).map((e) => e.input.Phone)).toEqual([OTHER]);
    expect(byteScan([context.globalStorageUri.fsPath], { phone: PERSON })).toEqual([]);
    expect(context.globalState.dump()).not.toContain(PERSON);
  });

  it('a file that cannot be written leaves the old History in globalState, and says so', async () => {
    // The global storage folder's place is taken by a file: nothing can be written under it.
    const blocked = join(tempDir('enrich-vscode-storage-'), 'not-a-folder');
    writeFileSync(blocked, 'x');
    const legacy = [entryFor(OTHER, 2_000)];
    const context = await activateWith(legacy, blocked);
    expect(context.globalState.get(HISTORY_STATE_KEY)).toEqual(legacy);
    expect(ui.messages.at(-1)?.text).toMatch(/^Enrichment could not use its History file/);
  });
});

function startChild(env: Record<string, string>) {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  let out = '';
  const waiting: { word: string; resolve: () => void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const w of waiting.splice(0)) {
      if (out.includes(w.word)) w.resolve();
      else waiting.push(w);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const said = (word: string) =>
    new Promise<void>((resolve) => {
      if (out.includes(word)) resolve();
      else waiting.push({ word, resolve });
    });
  return { child, said, exited };
}

const asideFiles = (folder: string) => readdirSync(folder).filter((name) => name.includes('.aside-'));

/** The file's entries' ids; the file must be whole JSON, written by HistoryFile. */
function idsIn(folder: string): string[] {
  const parsed = JSON.parse(readFileSync(join(folder, HISTORY_FILE), 'utf8')) as {
    v: number;
    entries: HistoryEntry[];
  };
  expect(parsed.v).toBe(1);
  return parsed.entries.map((entry) => entry.id);
}

describe('a rewrite of the History file', () => {
  it('killed at any moment leaves the old file or the new one, whole; the next change cleans up', async () => {
    const folder = tempDir('enrich-vscode-storage-');
    // 200 calls with 40 kB answers (8 MB): a rewrite long enough to be killed in the middle.
    const all = Array.from({ length: 200 }, (_, i) =>
      entryFor(i % 10 === 0 ? PERSON : `55501${String(i).padStart(5, '0')}`, 1e6 - i, 40_000),
    );
    const restore = () => new HistoryFile(folder).change(() => all);
    await restore();
    const allIds = all.map((e) => e.id).join();
    const keptIds = all
      .filter((e) => e.input.Phone !== PERSON)
      .map((e) => e.id)
      .join();
    const env = { ENRICH_TEST_MODE: 'forget', ENRICH_TEST_FOLDER: folder, ENRICH_TEST_PHONE: PERSON };

    const states = { old: 0, new: 0 };
    for (const when of [0, 20, 60, 120, 250]) {
      const { child, said, exited } = startChild(env);
      await said('reading');
      await new Promise((resolve) => setTimeout(resolve, when));
      child.kill('SIGKILL');
      await exited;
      const ids = idsIn(folder).join();
      expect([allIds, keptIds]).toContain(ids);
      states[ids === allIds ? 'old' : 'new']++;
      if (ids !== allIds) await restore();
    }

    // Killed with the new content synced, right before its rename: the old file, whole, with the
    // person still in it; the new content aside, and the lock of a process that is gone.
    const { child, said, exited } = startChild({ ...env, ENRICH_TEST_PAUSE: '1' });
    await said('renaming');
    child.kill('SIGKILL');
    await exited;
    expect(idsIn(folder).join()).toBe(allIds);
    expect(asideFiles(folder)).toHaveLength(1);
    expect(readdirSync(folder)).toContain(`${HISTORY_FILE}.lock`);
    states.old++;

    // The forget run again (Forget a Person, in-process): the dead writer's lock taken over, its
    // aside file deleted, and no byte of the person left in the folder.
    const history = new History(new HistoryFile(folder, { lockWaitMs: 2_000 }), () => 1_000);
    const matcher = new IdentityMatcher([{ kind: 'phone', value: PERSON }]);
    expect(await history.removeWhere((entry) => matcher.find(JSON.stringify(entry)) !== undefined)).toBe(20);
    expect(idsIn(folder).join()).toBe(keptIds);
    expect(asideFiles(folder)).toEqual([]);
    expect(readdirSync(folder)).not.toContain(`${HISTORY_FILE}.lock`);
    expect(byteScan([folder], { phone: PERSON })).toEqual([]);
    console.log(`kills: ${states.old} left the old file, ${states.new} the new one`);
  }, 120_000);

  it('two windows adding at once lose neither’s calls', async () => {
    const folder = tempDir('enrich-vscode-storage-');
    // Both start adding at the same moment, once their (slow) start is over.
    const common = {
      ENRICH_TEST_MODE: 'add',
      ENRICH_TEST_FOLDER: folder,
      ENRICH_TEST_COUNT: '40',
      ENRICH_TEST_START_AT: String(Date.now() + 5_000),
    };
    const a = startChild({ ...common, ENRICH_TEST_PREFIX: 'a' });
    const b = startChild({ ...common, ENRICH_TEST_PREFIX: 'b' });
    expect(await Promise.all([a.exited, b.exited])).toEqual([0, 0]);
    const ids = idsIn(folder);
    expect(ids).toHaveLength(80);
    expect(new Set(ids).size).toBe(80);
    expect(asideFiles(folder)).toEqual([]);
  }, 60_000);

  it('waits for another window’s change, and gives up past the wait with the file untouched', async () => {
    const folder = tempDir('enrich-vscode-storage-');
    await new HistoryFile(folder).change(() => [entryFor(OTHER, 1)]);
    const holder = startChild({
      ENRICH_TEST_MODE: 'forget',
      ENRICH_TEST_FOLDER: folder,
      ENRICH_TEST_PHONE: OTHER,
      ENRICH_TEST_PAUSE: '1',
    });
    await holder.said('renaming');
    const busy = new HistoryFile(folder, { lockWaitMs: 300 });
    await expect(busy.change(() => [])).rejects.toThrow(/stayed locked by another window/);
    expect(busy.read()).toHaveLength(1);
    holder.child.kill('SIGKILL');
    await holder.exited;
    await busy.change(() => []);
    expect(busy.read()).toEqual([]);
  });

  it('re-reads a file another window replaced; refuses one it did not write, quoting none of it', async () => {
    const folder = tempDir('enrich-vscode-storage-');
    const mine = new HistoryFile(folder);
    await mine.change(() => [entryFor(OTHER, 1)]);
    expect(mine.read()).toHaveLength(1);
    await new HistoryFile(folder).change((entries) => [entryFor(PERSON, 2), ...entries]);
    expect(mine.read()).toHaveLength(2);
    mkdirSync(folder, { recursive: true });
    writeFileSync(mine.path, `{"v":1,"entries":[{"Phone":"${PERSON}"`);
    const message = (() => {
      try {
        mine.read();
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/is not valid JSON/);
    expect(message).not.toContain(PERSON);
    // Not overwritten: the user may want what it holds.
    await expect(mine.change(() => [])).rejects.toThrow(/is not valid JSON/);
    expect(readFileSync(mine.path, 'utf8')).toContain(PERSON);
  });
});
