// Activates the extension against the vscode stand-in, with both base URLs pointing at a real
// sandbox on 127.0.0.1 (a free port), and helps tests answer the quick inputs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CleanInput, type Operation, type OutputRecord, readResponse, validate } from '@enrich/core';
import { createSandbox, type SandboxServer, type ServerOptions, startSandboxServer } from '@enrich/sandbox';
import { afterAll } from 'vitest';
import type * as vscode from 'vscode';
import { activate } from '../../src/extension';
import type { HistoryEntry } from '../../src/history';
import { HISTORY_FILE, HistoryFile } from '../../src/history-file';
import { choicesOf, fieldSteps, groupLabel } from '../../src/input/plan';
import { createExtensionContext, type Reply, resetStub, setSetting, ui } from '../vscode-stub';

// Every test file evaluates this module afresh, so this hook is the calling file's: the folders its
// tests made are removed when the file is done.
const madeDirs: string[] = [];
afterAll(() => {
  for (const dir of madeDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh folder, removed when the calling test file is done. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  madeDirs.push(dir);
  return dir;
}

/** Distinctive, so that a search of any stored text for it cannot match by accident. */
export const TEST_KEY = 'unit-key-7f3a9c1e5b';

export interface Harness {
  readonly server: SandboxServer;
  readonly context: ReturnType<typeof createExtensionContext>;
  close(): Promise<void>;
}

/** Harnesses activated and not closed yet: what closeHarnesses() closes. */
const open = new Set<Harness>();

export async function activateWithSandbox(
  options: {
    keys?: string[];
    setKey?: boolean;
    resultView?: 'view' | 'json';
    /** The sandbox's knobs (rate, latencyMs...), as it starts. */
    sandbox?: ServerOptions;
  } = {},
): Promise<Harness> {
  resetStub();
  // The user's data and cache folders (the suppression list, the registry of answer caches, the
  // MCP server's cache) are the test file's own: vitest.config.mts's setup file, test-folders.ts.
  const server = await startSandboxServer({ ...options.sandbox, keys: options.keys ?? [TEST_KEY] });
  await setSetting('enrich.baseUrl', server.url);
  await setSetting('enrich.baseUrlV3', server.url);
  // These tests read each result's JSON document; the result view has tests of its own.
  await setSetting('enrich.resultView', options.resultView ?? 'json');
  const context = createExtensionContext();
  if (options.setKey !== false) await context.secrets.store('enrich.apiKey', TEST_KEY);
  await activate(context as unknown as vscode.ExtensionContext);
  const harness: Harness = {
    server,
    context,
    async close() {
      open.delete(harness);
      for (const d of context.subscriptions) d.dispose();
      await server.close();
      // The spend ledger's folder, when a test wrote it.
      rmSync(context.globalStorageUri.fsPath, { recursive: true, force: true });
    },
  };
  open.add(harness);
  return harness;
}

/**
 * For afterEach: closes every harness activated and not closed yet (subscriptions disposed, sandbox
 * stopped), whether or not the test kept it in a variable, so that no sandbox or registration
 * outlives the test that started it.
 */
export async function closeHarnesses(): Promise<void> {
  for (const harness of [...open]) await harness.close();
}

/**
 * The replies a user gives to enter `input` through the operation's quick input: the groups that
 * hold its fields, then each asked field's value (blank when the input does not have it).
 */
export function repliesFor(op: Operation, input: Readonly<Record<string, string>>): Reply[] {
  const replies: Reply[] = [];
  const picks = choicesOf(op).map((choice) => {
    const given = choice.rule.groups
      .map((group, index) => ({ group, index }))
      .filter(({ group }) => group.every((f) => input[f] !== undefined));
    const chosen = choice.many ? given : given.slice(0, 1);
    replies.push({ pick: chosen.map(({ group }) => groupLabel(op, group)) });
    return chosen.map(({ index }) => index);
  });
  for (const step of fieldSteps(op, picks)) replies.push({ type: input[step.field.name] ?? '' });
  return replies;
}

/** What the sandbox answers for this input, asked of a separate in-process sandbox (same seed). */
export function expectedRecord(op: Operation, input: CleanInput): OutputRecord {
  const answer = createSandbox({ keys: [TEST_KEY] }).handle({
    method: 'POST',
    path: op.path,
    headers: { 'x-api-key': TEST_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(input),
  });
  const outcome = readResponse(op, answer);
  if (outcome.kind !== 'record') throw new Error(`The sandbox gave ${answer.status} for ${op.id}`);
  return outcome.record;
}

export function cleanExample(op: Operation): CleanInput {
  const checked = validate(op, op.example);
  if (!checked.ok) throw new Error(checked.message);
  return checked.input;
}

type Context = ReturnType<typeof createExtensionContext>;

/** The bytes of the extension's History file (in its global storage folder) as text; '' when there is none. */
export function storedHistoryText(context: Context): string {
  try {
    return readFileSync(join(context.globalStorageUri.fsPath, HISTORY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** The History as stored in its file, newest first, read here without the extension's code. */
export function storedHistory(context: Context): HistoryEntry[] {
  const text = storedHistoryText(context);
  return text === '' ? [] : (JSON.parse(text) as { entries: HistoryEntry[] }).entries;
}

/** Replaces the stored History (as another window would), through the file's own front. */
export async function writeStoredHistory(context: Context, entries: readonly HistoryEntry[]): Promise<void> {
  await new HistoryFile(context.globalStorageUri.fsPath).change(() => entries);
}

/** The last result document shown, parsed. */
export function lastResult(): Record<string, unknown> {
  const doc = ui.documents.at(-1);
  if (!doc) throw new Error('No result document was shown');
  return JSON.parse(doc.text);
}
