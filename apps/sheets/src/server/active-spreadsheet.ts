// The spreadsheet this execution is bound to, asked for once per execution: every Spreadsheet call
// is a round trip to the document, slow on the platform (the test runtime charges 160 ms). Each
// execution loads the script afresh, so nothing here outlives it.
let active: GoogleAppsScript.Spreadsheet.Spreadsheet | undefined;
let id: string | undefined;

export function activeSpreadsheet(): GoogleAppsScript.Spreadsheet.Spreadsheet {
  active ??= SpreadsheetApp.getActiveSpreadsheet();
  return active;
}

export function activeSpreadsheetId(): string {
  id ??= activeSpreadsheet().getId();
  return id;
}
