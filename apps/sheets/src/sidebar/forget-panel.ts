// "Forget a person" (issue 38), opened from the menu: what was typed is read with core's
// readPersonText (any spelling core normalises; one rule for every client), the server removes what
// the spreadsheet keeps on the person and lists them as forgotten (server: privacy/forget.ts), and
// the cells of the user's sheets that still show them are offered for clearing, never cleared
// without a click. Only core's canonical identities go to the server, never the text as typed.
import { type Identity, readPersonText } from '@enrich/core/universal';
import type { PersonCells } from '../server/privacy/forget-cells.js';
import { $, errorText, plural, showMessage } from './dom.js';
import { renderUndo } from './provenance-panel.js';
import { call } from './server.js';

/** "5550102030; jane.doe@example.com; Jane Doe, 12 Main St": each part a phone, an e-mail, or a name and street line. */
export function readPerson(text: string): Identity[] | string {
  const read = readPersonText(text);
  return read.ok ? [...read.identities] : `${read.message}.`;
}

let forgotten: Identity[] = [];

function offer(cells: PersonCells): void {
  const places = [...cells.cells, ...cells.formulas.map((at) => `the formula in ${at}`)];
  $('forget-offer').hidden = places.length === 0;
  const unsure =
    cells.unsure.length > 0
      ? ` Also ${cells.unsure.join(', ')}: values frozen from a formula without a header row, which the add-on cannot tell the extent of; clear them yourself.`
      : '';
  $('forget-offer-text').textContent =
    `Your sheets still show what was bought about them in ${places.join(', ')}. Clear those cells? ` +
    `Formulas are entered again, so that their row says the person was forgotten; inputs are never changed.${unsure}`;
}

async function forget(): Promise<void> {
  const read = readPerson($<HTMLInputElement>('forget-person').value);
  if (typeof read === 'string') return showMessage(`${read} Nothing was done.`);
  $<HTMLButtonElement>('forget').disabled = true;
  try {
    const report = await call('forgetPerson', read);
    forgotten = read;
    $<HTMLInputElement>('forget-person').value = '';
    showMessage('', true);
    // One answer may be in both stores: each store says what it lost.
    $('forget-result').textContent =
      `Forgotten on ${report.on} (UTC). Removed ${plural(report.fromSheet, 'kept answer')} from the hidden sheet ` +
      `and ${plural(report.fromCache, 'answer')} from the document cache` +
      (report.undoCopies > 0
        ? `; deleted ${plural(report.undoCopies, 'copy', 'copies')} kept for Undo`
        : '') +
      `. ${report.added > 0 ? `Added ${plural(report.added, 'identity', 'identities')} to` : 'Already on'} ` +
      "this spreadsheet's list of people forgotten (salted hashes: no number, address or name), which every formula, run and automation here checks before anything else.";
    // Its copy is gone: Undo the last run is no longer offered.
    if (report.undoCopies > 0) renderUndo(null);
    offer(report);
  } catch (error) {
    showMessage(errorText(error));
  } finally {
    $<HTMLButtonElement>('forget').disabled = false;
  }
}

async function clear(): Promise<void> {
  try {
    const cleared = await call('clearForgottenCells', forgotten);
    $('forget-offer').hidden = true;
    showMessage(
      `Cleared ${plural(cleared.cells.length, 'range')}; ${plural(cleared.formulas.length, 'formula')} entered again.`,
      true,
    );
  } catch (error) {
    showMessage(errorText(error));
  }
}

export function wireForgetPanel(open: boolean): void {
  $('forget-section').hidden = !open;
  $('forget-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void forget();
  });
  $('forget-clear').addEventListener('click', () => void clear());
  $('forget-leave').addEventListener('click', () => {
    $('forget-offer').hidden = true;
  });
}
