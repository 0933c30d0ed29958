// What Spreadsheet calls cost on the runtime's virtual clock (issue 35: the slow side).
/**
 * Virtual milliseconds per Spreadsheet call, plus per cell and per 1,000 characters read or written.
 * Google publishes no figure, so this takes the slow side of what has been measured:
 * - every call that asks the spreadsheet something (SpreadsheetApp's getActive*, a Spreadsheet or
 *   Sheet method such as getSheetByName, getSheets, getId, getMaxColumns, getLastRow, and a Range
 *   method that reads or writes cells) costs 160 ms, the slowest per-call figure found:
 *   Sheet.getLastRow() called 1,000 times in a loop took 160 s (bugbugnow.net,
 *   "GoogleAppsScriptのスプレッドシート処理を高速化する", 2019), where reads served from Sheets' read
 *   cache took about 3 ms each. No call is assumed to be served from that cache.
 * - making a Range from coordinates the script gives (getRange, offset, getDataRange's bounds aside)
 *   and reading its own coordinates (getRow, getNumRows, getA1Notation...) are free: nothing is
 *   asked of the spreadsheet.
 * - 2 ms per 1,000 characters read is about 0.5 MB/s, slower than community benchmarks of getValues
 *   on large text ranges, and writing is assumed slower still, so that figures derived from this
 *   err on the slow side.
 */
export const SPREADSHEET_COSTS = {
  call: 160,
  perCellRead: 0.002,
  perCellWrite: 0.01,
  perKcharRead: 2,
  perKcharWrite: 5,
};
