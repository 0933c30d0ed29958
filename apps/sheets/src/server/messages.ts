// Words the user reads in cells, errors and the sidebar, kept together so that they stay consistent.

export const ADDON_NAME = 'Enrich';
export const MENU_PATH = `Extensions > ${ADDON_NAME}`;

/** A formula ran with no key: formulas see the owner's user properties, whoever edits the cell. */
export const OWNER_HAS_NO_KEY =
  "Formulas in this spreadsheet use its owner's API key; the owner has not set one. " +
  `The sidebar uses your own key. Set your API key: ${MENU_PATH} > Set API key… ` +
  '(for formulas, the spreadsheet owner must do it).';

export const OWNER_KEY_REFUSED =
  "The API key was refused (401). Formulas in this spreadsheet use its owner's API key: " +
  `the owner should set a valid one (${MENU_PATH} > Set API key…). The sidebar uses your own key.`;

export const OWNER_ALLOWANCE_USED =
  "The transaction allowance of the spreadsheet owner's API key is used up (429). " +
  'Wait and recalculate, or ask the provider for a larger allowance.';

export const FORMULA_TIME_UP =
  'Not finished within the 30-second limit of a custom function. The answers so far are saved, so ' +
  `editing the formula again continues from here; for large ranges use ${MENU_PATH} > Verify or enrich selection…`;

/** Another formula was buying this answer when this one had to answer: nothing was paid for it here. */
export const FORMULA_STILL_FETCHING =
  'Still being fetched by another formula in this spreadsheet; recalculate in a moment (it is bought once).';

export const STATUS_COLUMN = 'Status';

/** A refused key stops a sidebar run: the sidebar uses the user's own key. */
export const SIDEBAR_KEY_REFUSED =
  'Your API key was refused (401). The sidebar uses your own key: set a valid one, then resume.';

/** The start of what a formula row says when the allowance stopped it (allowance/reenter.ts looks for it). */
export const ALLOWANCE_REACHED = 'Allowance reached';

/**
 * A formula row not bought because of the allowance (`by` the day's or the month's limit of `limit`
 * transactions), or because the spreadsheet was too busy to claim under it.
 */
export function formulaHeldText(by: 'day' | 'month' | 'busy', limit: number): string {
  if (by === 'busy') {
    return 'Not bought: the spreadsheet was too busy to check its allowance; recalculate in a moment.';
  }
  return (
    `${ALLOWANCE_REACHED} (${limit.toLocaleString('en-US')} a ${by} in this spreadsheet): not bought. ` +
    `The key's owner can raise it: ${MENU_PATH} > Settings….`
  );
}

/** Why a sidebar run stopped at the allowance (`by` the day's or month's limit), before sheet row `row`. */
export function runHeldText(by: 'day' | 'month' | 'busy', limit: number, row: number): string {
  if (by === 'busy') {
    return `The spreadsheet was too busy to check your allowance, so nothing more was bought (next: row ${row}). Resume in a moment.`;
  }
  return (
    `Your allowance in this spreadsheet is reached (${limit.toLocaleString('en-US')} transactions a ${by}): ` +
    `the run stopped before row ${row} and bought nothing more. Raise it under Spend and allowance, or resume ` +
    `${by === 'day' ? 'tomorrow' : 'next month'} (UTC); the rows done so far stay.`
  );
}
