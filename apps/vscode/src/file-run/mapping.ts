// The step before an "Enrich File" run spends anything: one quick pick that shows the cost (rows,
// distinct valid requests, answers already cached, transactions to spend), what was found in the
// file (its encoding and separator, JSON Lines, or the workbook's sheet) and the column mapping,
// each field on a row of its own. Picking a field lets the user choose its column (or none); the
// cost is worked out again after every change. Picking the file's row of a workbook with several
// sheets asks for another sheet. "Enrich" leads to the confirmation. A field can be moved to another
// column; the engine takes no "leave this field out" (its mapping is field -> column), so a column
// the user does not want is left out by picking another field's column.

import { BulkError, readHeader } from '@enrich/bulk';
import { mapColumns } from '@enrich/core';
import * as vscode from 'vscode';
import { type CsvRun, costWords, type Planned, planRun, sourceChoice } from './files';
import type { SheetInfo } from './workbook-sheets';

interface Row extends vscode.QuickPickItem {
  readonly field?: string;
  readonly go?: boolean;
  readonly file?: boolean;
}

/**
 * The run with the mapping (and sheet) the user accepted and its cost, or undefined when they stepped
 * away. `sheets`: a workbook's sheets (none for another kind of file).
 */
export async function reviewMapping(
  start: CsvRun,
  retarget: (overrides: Readonly<Record<string, string>>, sheet: string | undefined) => CsvRun,
  sheets: readonly SheetInfo[] = [],
): Promise<(Planned & { run: CsvRun }) | undefined> {
  let run = start;
  let header = await headerOf(run);
  for (;;) {
    const mapping = header.problem ? undefined : mapColumns(run.op, header.columns, run.overrides);
    let planned: Planned | undefined;
    let problem = header.problem ?? mapping?.problem;
    if (!problem) {
      try {
        planned = await planRun(run);
      } catch (error) {
        if (!(error instanceof BulkError)) throw error;
        problem = error.message;
      }
    }
    const plan = planned?.plan;
    const rows: Row[] = [
      plan
        ? {
            label: `$(play) Enrich: spend ${plan.transactions} transaction${plan.transactions === 1 ? '' : 's'}`,
            detail: costWords(plan),
            go: true,
          }
        : { label: '$(error) Cannot run with this mapping', detail: problem },
      ...fileRow(plan, run, sheets),
      ...(mapping
        ? [
            {
              label: 'Column mapping (pick a field to change its column)',
              kind: vscode.QuickPickItemKind.Separator,
            },
            ...run.op.inputs.map((field) => {
              const index = mapping.fields[field.name];
              return {
                label: field.name,
                description: index === undefined ? '(no column)' : `← ${header.columns[index]}`,
                field: field.name,
              };
            }),
          ]
        : []),
    ];
    const chosen = await pickOne(`${run.op.title}: ${basename(run.inPath)}`, rows);
    if (!chosen) return undefined;
    if (chosen.go && planned) return { run, ...planned };
    if (chosen.file) {
      if (sheets.length < 2) continue;
      const sheet = await askSheet(run.inPath, sheets, run.sheet);
      // Another sheet has other columns: its mapping starts afresh.
      if (sheet !== undefined && sheet !== run.sheet) {
        run = retarget({}, sheet);
        header = await headerOf(run);
      }
      continue;
    }
    if (!chosen.field) continue;
    const column = await pickOne(
      `${run.op.title}: which column holds ${chosen.field}?`,
      header.columns.map((label) => ({ label })),
    );
    if (column) run = retarget({ ...run.overrides, [chosen.field]: column.label }, run.sheet);
  }
}

/**
 * What the engine found in the file ("Windows-1252 (detected), semicolon-separated (detected)", "JSON
 * Lines (UTF-8)", 'Excel workbook, sheet "Leads" (2 of 3)'); for a workbook of several sheets, also
 * when the mapping cannot run (a sheet without the columns needed), the way to another sheet.
 */
function fileRow(plan: Planned['plan'] | undefined, run: CsvRun, sheets: readonly SheetInfo[]): Row[] {
  const another = sheets.length > 1 ? 'pick to read another sheet' : undefined;
  if (plan) return [{ label: `$(file) ${plan.found}`, description: another, file: true }];
  const sheet = run.sheet ?? sheets[0]?.name;
  return another
    ? [{ label: `$(file) Excel workbook, sheet "${sheet}"`, description: another, file: true }]
    : [];
}

/**
 * Which sheet of a workbook to read, in tab order, the current one (else the first) under Enter;
 * undefined when the user stepped away.
 */
export async function askSheet(
  inPath: string,
  sheets: readonly SheetInfo[],
  current?: string,
): Promise<string | undefined> {
  const items = sheets.map((sheet, index) => ({
    label: sheet.name,
    description: `sheet ${index + 1} of ${sheets.length}${sheet.hidden ? ', hidden' : ''}`,
  }));
  const active = Math.max(
    0,
    items.findIndex((item) => current !== undefined && same(item.label, current)),
  );
  const chosen = await pickOne(`Enrich ${basename(inPath)}: which sheet?`, items, active);
  return chosen?.label;
}

/** The input's columns, or why they cannot be read (a file that is not what its name says, say). */
async function headerOf(run: CsvRun): Promise<{ columns: string[]; problem?: string }> {
  try {
    return { columns: await readHeader(run.inPath, sourceChoice(run)) };
  } catch (error) {
    if (!(error instanceof BulkError)) throw error;
    return { columns: [], problem: error.message };
  }
}

/** Excel's sheet names are unique regardless of case, and the engine finds them so. */
function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

function pickOne<T extends vscode.QuickPickItem>(
  title: string,
  items: readonly T[],
  active = 0,
): Promise<T | undefined> {
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<T>();
    pick.title = title;
    pick.items = items;
    // The row Enter takes: the first ("Enrich" when the mapping can run) unless told otherwise.
    pick.activeItems = items.slice(active, active + 1);
    pick.ignoreFocusOut = true;
    let chosen: T | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve(chosen);
    };
    pick.onDidAccept(() => {
      chosen = pick.selectedItems[0] ?? pick.activeItems[0];
      pick.dispose();
      finish();
    });
    pick.onDidHide(() => {
      pick.dispose();
      finish();
    });
    pick.show();
  });
}
