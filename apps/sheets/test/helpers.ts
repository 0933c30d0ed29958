// Shared set-up for the add-on's tests: a runtime whose sandbox knows two test keys (the owner's and
// the collaborator's; test values, not secrets, but treated as secrets by the leak scans), and a
// second, independent sandbox to compute the records the API gives for an input without spending
// any of the runtime's transactions.
import { createSandbox, DEMO_KEY, type SandboxOptions } from '@enrich/sandbox';
import { createRuntime, type Runtime, type RuntimeOptions } from './runtime/index.js';

export const OWNER_KEY = 'owner-key-3f9c2a7d51e84b60';
export const COLLABORATOR_KEY = 'collab-key-8d41e0b29c7a5f13';

/** The defaults the add-on documents (docs/api.md, "Two base addresses"), as literal text. */
export const V2_BASE = 'https://api.tdg1.io';
export const V3_BASE = 'https://testapi.tdg1.io';

/** An allowance so large that tests about something else never meet it. */
export const NO_LIMIT = { day: 1_000_000, month: 1_000_000 };

export function newRuntime(
  options: {
    sandbox?: Omit<SandboxOptions, 'now' | 'keys'>;
    latencyMs?: number;
    ownerKey?: boolean;
    /** Each user's allowance in the spreadsheet: 'default' leaves the add-on's (500 a day). */
    allowance?: 'default' | { day: number; month: number };
  } & Pick<RuntimeOptions, 'seed' | 'distDir'> = {},
): Runtime {
  const rt = createRuntime({
    sandbox: { ...options.sandbox, keys: [OWNER_KEY, COLLABORATOR_KEY], latencyMs: options.latencyMs ?? 0 },
    seed: options.seed,
    distDir: options.distDir,
  });
  setAllowance(rt, options.allowance ?? NO_LIMIT);
  if (options.ownerKey !== false) rt.run(rt.owner, 'saveSettings', { apiKey: OWNER_KEY });
  return rt;
}

/**
 * The add-on in a second spreadsheet, `id`, opened by the same two users: their keys and settings
 * (user properties) are the ones they saved in the first. Its own sandbox counts what it buys.
 */
export function anotherSpreadsheet(rt: Runtime, id: string, options: { latencyMs?: number } = {}): Runtime {
  const other = rt.inAnotherSpreadsheet({
    spreadsheetId: id,
    // Other random numbers than the first's (Utilities.getUuid: its runs' ids differ).
    seed: 4242,
    sandbox: { keys: [OWNER_KEY, COLLABORATOR_KEY], latencyMs: options.latencyMs ?? 0 },
  });
  setAllowance(other, NO_LIMIT);
  return other;
}

function setAllowance(rt: Runtime, allowance: 'default' | { day: number; month: number }): void {
  if (allowance === 'default') return;
  // As each user set it in the sidebar's Allowance (allowance/setting.ts), without an execution
  // that would move the clock.
  for (const user of [rt.owner, rt.collaborator]) {
    rt.userProperties(user).values.set(`enrich.allowance.${rt.spreadsheet.id}`, JSON.stringify(allowance));
  }
}

const reference = createSandbox();

/** The record the API answers for a request body (computed by a separate sandbox with the same data). */
// biome-ignore lint/suspicious/noExplicitAny: its shape depends on the operation; tests index it freely
export function referenceRecord(path: string, body: Record<string, string>): Record<string, any> {
  const answer = reference.handle({
    method: 'POST',
    path,
    headers: { 'x-api-key': DEMO_KEY, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (answer.status !== 200) throw new Error(`reference sandbox answered ${answer.status} for ${path}`);
  return JSON.parse(answer.body);
}

/** Distinct 10-digit phones that the sandbox answers with a record (not reserved numbers). */
export function phone(i: number): string {
  return String(2_000_000_000 + i * 7919);
}
