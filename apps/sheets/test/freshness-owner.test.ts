// Issue 35, item 10: formulas spend the spreadsheet owner's key, so only the owner decides how long
// the answers they bought are reused. "Reuse kept answers for" is a setting of whoever saves it,
// read by formulas from the owner's own settings; a collaborator's setting governs the
// collaborator's sidebar runs (their own key) and nothing the owner pays for.
import { expect, test } from 'vitest';
import { newRuntime, phone } from './helpers.js';
import type { Runtime } from './runtime/index.js';

const DAY = 86_400_000;

/** 200 phones bought by the owner's range formula on day 0 and kept in the hidden sheet. */
function boughtAndKept(rt: Runtime): number[][] {
  const rows = Array.from({ length: 200 }, (_, i) => [Number(phone(i))]);
  rt.customFunction(rt.owner, 'PHONELOOKUP', rows, 'FName');
  rt.scriptRun(rt.collaborator, 'keepAnswers');
  expect(rt.sandbox.transactions()).toBe(200);
  return rows;
}

test("a collaborator's 1-day setting does not make the owner's formulas buy again two days later", () => {
  const rt = newRuntime();
  const rows = boughtAndKept(rt);
  rt.scriptRun(rt.collaborator, 'saveSettings', { answerDays: 1 });
  rt.clock.advance(2 * DAY);
  // Whatever writes the store meanwhile (here the collaborator's sidebar) drops nothing the owner reuses.
  rt.scriptRun(rt.collaborator, 'getSidebarState');
  rt.scriptRun(rt.collaborator, 'keepAnswers');
  rt.customFunction(rt.collaborator, 'PHONELOOKUP', rows, 'FName');
  // Before the fix: 400 for 200 answers (the setting was the document's, and anyone could set it).
  expect(rt.sandbox.transactions()).toBe(200);
  // The collaborator's setting is theirs: their Check counts those answers as too old to reuse
  // (their key would pay), and says whose setting formulas follow.
  const state = rt.scriptRun(rt.collaborator, 'getSidebarState') as { answers: { days: number } };
  expect(state.answers.days).toBe(1);
  expect((rt.scriptRun(rt.owner, 'getSidebarState') as { answers: { days: number } }).answers.days).toBe(30);
});

test("the owner's own setting is what their formulas follow", () => {
  const rt = newRuntime();
  const rows = boughtAndKept(rt);
  rt.scriptRun(rt.owner, 'saveSettings', { answerDays: 1 });
  rt.clock.advance(2 * DAY);
  rt.customFunction(rt.collaborator, 'PHONELOOKUP', rows, 'FName');
  expect(rt.sandbox.transactions()).toBe(400);
  // Nothing about it lives in the document, where every editor could change it.
  // (The document's properties hold only the allowance's count, issue 39: no setting.)
  expect([...rt.documentProperties.values.keys()].filter((k) => k !== 'enrich.allowance.spent')).toEqual([]);
});
