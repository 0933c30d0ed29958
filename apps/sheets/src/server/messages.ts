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
