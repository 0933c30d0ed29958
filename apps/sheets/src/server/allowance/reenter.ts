// After the allowance is raised, the formulas that stopped at it go on: their cells still say
// "Allowance reached" until Sheets recalculates them, which it does when their arguments change or
// whenever it likes (an hourly pass, reopening). So saving a higher allowance enters those formulas
// again, block by block: cleared, flushed, then the same formulas written back, which makes Sheets
// run them (whether writing back the very same formula alone would is not documented, hence the
// clearing). Their answers bought before the stop are kept, so only the rows held back are bought.
import { activeSpreadsheet } from '../active-spreadsheet.js';
import { PRIVATE_SHEET_PREFIX } from '../answers/hidden-sheet.js';
import { parseCall } from '../formulas/formula-text.js';
import { ALLOWANCE_REACHED } from '../messages.js';

/** Enters again every add-on formula of the spreadsheet with a row stopped at the allowance; returns how many. */
export function reenterHeldFormulas(): number {
  let count = 0;
  for (const sheet of activeSpreadsheet().getSheets()) {
    if (sheet.getName().startsWith(PRIVATE_SHEET_PREFIX)) continue;
    const data = sheet.getDataRange();
    const formulas = data.getFormulas();
    const values = data.getValues();
    const held = (r: number, c: number) => {
      // The formula's first column, from its cell down to the next formula in that column.
      for (let k = r; k < values.length; k++) {
        if (k > r && formulas[k]?.[c]) return false;
        const shown = values[k]?.[c];
        if (typeof shown === 'string' && shown.startsWith(ALLOWANCE_REACHED)) return true;
      }
      return false;
    };
    const width = formulas[0]?.length ?? 0;
    for (let c = 0; c < width; c++) {
      // Runs of such formulas one above the other (filled down) are entered in one write.
      let run: string[] = [];
      let top = 0;
      const flushRun = () => {
        if (run.length === 0) return;
        const block = sheet.getRange(top + 1, c + 1, run.length, 1);
        block.setValues(run.map(() => ['']));
        SpreadsheetApp.flush();
        block.setValues(run.map((f) => [f]));
        count += run.length;
        run = [];
      };
      for (let r = 0; r < formulas.length; r++) {
        const formula = formulas[r]?.[c] ?? '';
        if (formula && parseCall(formula) && held(r, c)) {
          if (run.length === 0) top = r;
          run.push(formula);
        } else flushRun();
      }
      flushRun();
    }
  }
  return count;
}
