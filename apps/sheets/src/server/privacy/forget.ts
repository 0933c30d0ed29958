// Forget a person (issue 38), as the sidebar's "Forget a person" section asks (Extensions > Enrich >
// Forget a person…): the person (a phone, an e-mail, a name with its street line, in core's canonical
// spelling: the sidebar reads what was typed with core's identitiesOf) is added to this
// spreadsheet's suppression list (forgotten.ts), then every kept answer whose request or answer
// holds them is removed from the document cache and the hidden sheet, and the copies kept for Undo
// are deleted (they may hold earlier results of the person). It says what it removed and which of the
// add-on's cells in the user's sheets still show the person; clearing those is the user's choice
// (clearForgottenCells). Nothing is sent.
//
// "Holds": the request carried the person (its answer is kept with their tags: paid-answer.ts,
// whoOf), or core's matcher finds them anywhere in the answer as kept. One limit: a formula already
// fetching when the person is forgotten may still save its answer afterwards; the next Forget of the
// same person removes it.
import { type Identity, IdentityMatcher, utcDay } from '@enrich/core/universal';
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { documentCache, dropCachedAnswers } from '../answers/document-cache.js';
import { dropFromHiddenSheet, PRIVATE_SHEET_PREFIX } from '../answers/hidden-sheet.js';
import { personTag } from '../answers/paid-answer.js';
import { underDocumentLock } from '../document-lock.js';
import { type PersonCells, personCells } from './forget-cells.js';
import { addForgotten } from './forgotten.js';

const NOTHING_CHANGED = 'Nothing was changed.';

export interface ForgetReport extends PersonCells {
  /** The UTC day the person was forgotten, as refusals will say it. */
  readonly on: string;
  /** Identities added to the suppression list (0 when all were on it already). */
  readonly added: number;
  readonly fromCache: number;
  readonly fromSheet: number;
  /** Hidden copies kept for "Undo the last run" that were deleted. */
  readonly undoCopies: number;
}

/** Forgets the person; `person` is core's identities of them, as the sidebar read them. */
export function forgetPerson(person: unknown): ForgetReport {
  const identities = identitiesFrom(person);
  const matcher = new IdentityMatcher(identities);
  const tags = new Set(identities.map(personTag));
  const holds = (answer: { readonly outcome: unknown; readonly who?: readonly string[] }) =>
    answer.who?.some((tag) => tags.has(tag)) === true ||
    matcher.find(JSON.stringify(answer.outcome) ?? '') !== undefined;
  const on = utcDay(Date.now());
  const done = underDocumentLock(30_000, () => {
    // Listed first: from here on no formula, run or automation buys the person again.
    const added = addForgotten(identities, on);
    const cache = documentCache();
    return {
      added,
      fromCache: cache ? dropCachedAnswers(cache, holds) : 0,
      fromSheet: dropFromHiddenSheet(holds),
    };
  });
  if (!done)
    throw new Error(
      'The spreadsheet is busy (a run or formulas are saving answers); try again in a moment. Nothing was changed.',
    );
  const spreadsheet = activeSpreadsheet();
  let undoCopies = 0;
  for (const sheet of spreadsheet.getSheets()) {
    if (!sheet.getName().startsWith(`${PRIVATE_SHEET_PREFIX}undo_`)) continue;
    spreadsheet.deleteSheet(sheet);
    undoCopies++;
  }
  return { on, ...done.value, undoCopies, ...personCells(matcher) };
}

/** Clears the add-on's cells that show the person, and enters again the formulas covering them. */
export function clearForgottenCells(person: unknown): PersonCells {
  return personCells(new IdentityMatcher(identitiesFrom(person)), true);
}

/**
 * The identities the sidebar sent: core's, as its identitiesOf reads what was typed (one rule for
 * every client); each must at least be of a known kind with a value, or nothing is done.
 */
function identitiesFrom(person: unknown): Identity[] {
  const list = (Array.isArray(person) ? person : []) as Identity[];
  const known = (i: Identity) =>
    ['phone', 'email', 'name-address'].includes(i?.kind) && typeof i.value === 'string' && i.value !== '';
  if (list.length === 0 || !list.every(known)) throw new Error(`Give the person. ${NOTHING_CHANGED}`);
  return list.map((i) => ({ kind: i.kind, value: i.value }));
}
