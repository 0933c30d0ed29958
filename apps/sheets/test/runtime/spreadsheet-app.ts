// SpreadsheetApp over the in-memory model, with Apps Script's rules: custom functions may read
// (get*) but not write (set*), open other files or reach the UI; AuthMode.NONE (onOpen before the
// add-on is authorised) may only build menus. Each call costs virtual time, like the real service
// (spreadsheet-costs.ts).
import type { Execution } from './execution.js';
import { charsOf, checkGrid, display } from './grid-check.js';
import { SPREADSHEET_COSTS } from './spreadsheet-costs.js';
import {
  a1Of,
  type Box,
  parseA1,
  type SheetModel,
  type SpreadsheetModel,
  type Value,
} from './spreadsheet-model.js';
import {
  type CallCosts,
  copyMethod,
  deleteSheet,
  insertRowsAfter,
  noteMethods,
  RANGE_INTERNALS,
} from './spreadsheet-notes-copy.js';
import { createUi } from './spreadsheet-ui.js';

export interface UiLog {
  readonly menus: { user: string; items: (string | null)[] }[];
  readonly sidebars: { user: string; title: string; html: string }[];
  readonly dialogs: { user: string; title: string; html: string }[];
  readonly alerts: { user: string; title: string; prompt: string }[];
}

export interface SpreadsheetHost {
  readonly model: SpreadsheetModel;
  readonly ui: UiLog;
  /** Names of the top-level functions of the loaded script (menu items must name one). */
  readonly globalFunctions: () => readonly string[];
  readonly htmlContent: (output: unknown) => { title: string; html: string };
  /** A failure injected by a test for the next call of this method (say, setValues), if any. */
  readonly takeFault: (method: string) => string | undefined;
  /** Whether a simple trigger in AuthMode.LIMITED may write the document (documented; switchable to test refusal). */
  readonly limitedMayWrite: () => boolean;
}

export function createSpreadsheetApp(exec: Execution, host: SpreadsheetHost) {
  const { model } = host;
  const realm = exec.realm;
  const read = (what: string, cells = 0, chars = 0) => {
    exec.allow(`SpreadsheetApp ${what}`, { custom: true, limited: true });
    exec.enter(
      SPREADSHEET_COSTS.call +
        cells * SPREADSHEET_COSTS.perCellRead +
        (chars / 1000) * SPREADSHEET_COSTS.perKcharRead,
    );
  };
  const write = (what: string, cells = 0, chars = 0) => {
    exec.allow(what, { limited: host.limitedMayWrite() });
    exec.enter(
      SPREADSHEET_COSTS.call +
        cells * SPREADSHEET_COSTS.perCellWrite +
        (chars / 1000) * SPREADSHEET_COSTS.perKcharWrite,
    );
    const fault = host.takeFault(what);
    if (fault !== undefined) throw realm.error(fault);
  };
  const fail = (message: string): never => {
    throw realm.error(message);
  };
  const costs: CallCosts = { read, write, fail };
  const SHEET = Symbol('sheet');

  function grid<T>(box: Box, f: (row: number, column: number) => T): T[][] {
    const out: T[][] = [];
    for (let r = 0; r < box.numRows; r++) {
      const line: T[] = [];
      for (let c = 0; c < box.numColumns; c++) line.push(f(box.row + r, box.column + c));
      out.push(line);
    }
    return realm.importValue(out);
  }

  function range(sheet: SheetModel, box: Box): object {
    if (!sheet.inBounds(box)) {
      if (box.numRows < 1) fail('The number of rows in the range must be at least 1.');
      if (box.numColumns < 1) fail('The number of columns in the range must be at least 1.');
      fail('The coordinates of the range are outside the dimensions of the sheet.');
    }
    const cells = box.numRows * box.numColumns;
    const self = {
      [RANGE_INTERNALS]: { sheet, box },
      ...noteMethods(sheet, box, costs),
      copyTo: copyMethod(sheet, box, costs),
      setFormula: (formula: unknown) => {
        write('setFormula', cells);
        if (cells !== 1) fail('setFormula on more than one cell is not modelled by this test runtime');
        if (typeof formula !== 'string' || !formula.startsWith('=')) fail('Range.setFormula takes a formula');
        sheet.write(box, [[formula as string]]);
        return self;
      },
      getRow: () => box.row,
      getColumn: () => box.column,
      getNumRows: () => box.numRows,
      getNumColumns: () => box.numColumns,
      getLastRow: () => box.row + box.numRows - 1,
      getLastColumn: () => box.column + box.numColumns - 1,
      getA1Notation: () => a1Of(box),
      getSheet: () => sheetObject(sheet),
      activate: () => {
        read('Range.activate');
        model.active = { sheetId: sheet.id, box };
        return self;
      },
      offset: (rowOffset: number, columnOffset: number, numRows?: number, numColumns?: number) =>
        range(sheet, {
          row: box.row + rowOffset,
          column: box.column + columnOffset,
          numRows: numRows ?? box.numRows,
          numColumns: numColumns ?? box.numColumns,
        }),
      getValues: () => {
        const values = grid(box, (r, c) => sheet.value(r, c));
        read('Range.getValues', cells, charsOf(values));
        return values;
      },
      getValue: () => {
        read('Range.getValue', 1);
        return realm.importValue(sheet.value(box.row, box.column));
      },
      getDisplayValues: () => {
        read('Range.getDisplayValues', cells);
        return grid(box, (r, c) => display(sheet.value(r, c)));
      },
      getFormulas: () => {
        read('Range.getFormulas', cells);
        return grid(box, (r, c) => sheet.cell(r, c)?.formula ?? '');
      },
      getFormula: () => {
        read('Range.getFormula', 1);
        return sheet.cell(box.row, box.column)?.formula ?? '';
      },
      getNumberFormats: () => {
        read('Range.getNumberFormats', cells);
        return grid(box, (r, c) => sheet.cell(r, c)?.format ?? '0.###############');
      },
      isBlank: () => {
        read('Range.isBlank', cells);
        return grid(box, (r, c) => sheet.value(r, c) === '' && !sheet.cell(r, c)?.formula).every((line) =>
          line.every(Boolean),
        );
      },
      setValues: (values: unknown) => {
        write('setValues', cells, Array.isArray(values) ? charsOf(values as unknown[][]) : 0);
        sheet.write(box, checkGrid(box, values, 'Range.setValues', fail));
        return self;
      },
      setValue: (value: unknown) => {
        write('setValue', cells);
        const grid1 = Array.from({ length: box.numRows }, () =>
          Array.from({ length: box.numColumns }, () => value),
        );
        sheet.write(box, checkGrid(box, grid1, 'Range.setValue', fail));
        return self;
      },
      setNumberFormat: (format: unknown) => {
        write('setNumberFormat', cells);
        if (typeof format !== 'string') fail('Range.setNumberFormat takes a string');
        sheet.setFormat(box, () => format as string);
        return self;
      },
      setNumberFormats: (formats: unknown) => {
        write('setNumberFormats', cells);
        const checked = checkGrid(box, formats, 'Range.setNumberFormats', fail);
        sheet.setFormat(box, (r, c) => String((checked[r] as Value[])[c]));
        return self;
      },
      clearContent: () => {
        write('clearContent', cells);
        sheet.write(
          box,
          Array.from({ length: box.numRows }, () => Array.from({ length: box.numColumns }, () => '')),
        );
        return self;
      },
    };
    return self;
  }

  function sheetObject(sheet: SheetModel): object {
    return {
      [SHEET]: sheet,
      insertRowsAfter: (after: number, count: number) => {
        insertRowsAfter(sheet, costs)(after, count);
        return sheetObject(sheet);
      },
      getName: () => {
        read('Sheet.getName');
        return sheet.name;
      },
      getSheetId: () => {
        read('Sheet.getSheetId');
        return sheet.id;
      },
      getParent: () => {
        read('Sheet.getParent');
        return spreadsheetObject();
      },
      getMaxRows: () => {
        read('Sheet.getMaxRows');
        return sheet.maxRows;
      },
      getMaxColumns: () => {
        read('Sheet.getMaxColumns');
        return sheet.maxColumns;
      },
      getLastRow: () => {
        read('Sheet.getLastRow');
        return sheet.lastRow();
      },
      getLastColumn: () => {
        read('Sheet.getLastColumn');
        return sheet.lastColumn();
      },
      getRange: (a: unknown, b?: number, c?: number, d?: number) => {
        if (typeof a === 'string') return range(sheet, parseA1(a, sheet.maxRows));
        return range(sheet, { row: a as number, column: b as number, numRows: c ?? 1, numColumns: d ?? 1 });
      },
      getDataRange: () => {
        read('Sheet.getDataRange');
        return range(sheet, {
          row: 1,
          column: 1,
          numRows: Math.max(1, sheet.lastRow()),
          numColumns: Math.max(1, sheet.lastColumn()),
        });
      },
      hideSheet: () => {
        write('hideSheet');
        sheet.hidden = true;
        if (model.active?.sheetId === sheet.id) model.active = null;
        return sheetObject(sheet);
      },
      isSheetHidden: () => {
        read('Sheet.isSheetHidden');
        return sheet.hidden;
      },
      activate: () => {
        read('Sheet.activate');
        model.active = { sheetId: sheet.id, box: { row: 1, column: 1, numRows: 1, numColumns: 1 } };
        return sheetObject(sheet);
      },
      insertColumnsAfter: (after: number, count: number) => {
        write('insertColumnsAfter');
        sheet.insertColumnsAfter(after, count);
        return sheetObject(sheet);
      },
    };
  }

  function activeSheetModel(): SheetModel {
    const active = model.active ? model.sheetById(model.active.sheetId) : undefined;
    return active ?? (model.sheets[0] as SheetModel);
  }

  function spreadsheetObject(): object {
    return {
      getId: () => {
        read('Spreadsheet.getId');
        return model.id;
      },
      getName: () => {
        read('Spreadsheet.getName');
        return model.name;
      },
      deleteSheet: deleteSheet(model, costs, (s) => {
        const found = (s as { [SHEET]?: SheetModel } | null)?.[SHEET];
        return found ?? fail('Spreadsheet.deleteSheet takes a Sheet');
      }),
      getSheets: () => {
        read('Spreadsheet.getSheets');
        return realm.importValue(model.sheets.map(sheetObject));
      },
      getSheetByName: (name: string) => {
        read('Spreadsheet.getSheetByName');
        const sheet = model.sheets.find((s) => s.name === name);
        return sheet ? sheetObject(sheet) : null;
      },
      getActiveSheet: () => {
        read('Spreadsheet.getActiveSheet');
        return sheetObject(activeSheetModel());
      },
      insertSheet: (name: unknown, index?: number) => {
        write('insertSheet');
        if (typeof name !== 'string' || name === '') fail('Invalid argument: sheetName');
        if (model.sheets.some((s) => s.name === name)) {
          fail(`A sheet with the name "${String(name)}" already exists. Please enter another name.`);
        }
        const sheet = model.addSheet(name as string, 1000, 26, index);
        // Sheets makes an inserted sheet the active one.
        model.active = { sheetId: sheet.id, box: { row: 1, column: 1, numRows: 1, numColumns: 1 } };
        return sheetObject(sheet);
      },
      getActiveRange: () => {
        read('Spreadsheet.getActiveRange');
        return activeRange();
      },
      getRange: (a1: string) => {
        const m = /^(?:'((?:[^']|'')+)'|([^!]+))!(.+)$/.exec(a1);
        if (!m) return range(activeSheetModel(), parseA1(a1, activeSheetModel().maxRows));
        const sheet = model.sheets.find((s) => s.name === (m[1] ?? m[2] ?? '').replace(/''/g, "'"));
        if (!sheet) fail(`Range not found: ${a1}`);
        return range(sheet as SheetModel, parseA1(m[3] as string, (sheet as SheetModel).maxRows));
      },
      toast: (message: string, title?: string) => {
        write('Spreadsheet.toast');
        model.toasts.push(title ? `${title}: ${message}` : message);
      },
    };
  }

  function activeRange(): object | null {
    if (!model.active) return null;
    const sheet = model.sheetById(model.active.sheetId);
    return sheet ? range(sheet, model.active.box) : null;
  }

  return {
    getActiveSpreadsheet: () => {
      exec.allow('SpreadsheetApp.getActiveSpreadsheet', { custom: true });
      exec.enter(SPREADSHEET_COSTS.call);
      return exec.noDocument ? null : spreadsheetObject();
    },
    getActive: () => {
      exec.allow('SpreadsheetApp.getActive', { custom: true });
      exec.enter(SPREADSHEET_COSTS.call);
      return exec.noDocument ? null : spreadsheetObject();
    },
    getActiveSheet: () => {
      exec.allow('SpreadsheetApp.getActiveSheet', { custom: true });
      exec.enter(SPREADSHEET_COSTS.call);
      return sheetObject(activeSheetModel());
    },
    getActiveRange: () => {
      exec.allow('SpreadsheetApp.getActiveRange', { custom: true });
      exec.enter(SPREADSHEET_COSTS.call);
      return activeRange();
    },
    getUi: () => createUi(exec, host),
    flush: () => {
      exec.allow('SpreadsheetApp.flush', { custom: true });
      exec.enter(SPREADSHEET_COSTS.call);
    },
    openById: () => fail('You do not have permission to call SpreadsheetApp.openById'),
    openByUrl: () => fail('You do not have permission to call SpreadsheetApp.openByUrl'),
  };
}
