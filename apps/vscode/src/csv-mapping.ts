// The step before an "Enrich CSV" run spends anything: one quick pick that shows the cost (rows,
// distinct valid requests, answers already cached, transactions to spend) and the column mapping,
// each field on a row of its own. Picking a field lets the user choose its column (or none); the
// cost is worked out again after every change. "Enrich" leads to the confirmation. A field can be
// moved to another column; the engine takes no "leave this field out" (its mapping is field ->
// column), so a column the user does not want is left out by picking another field's column.

import type { BulkPlan } from '@enrich/bulk';
import { BulkError, readHeader } from '@enrich/bulk';
import { mapColumns } from '@enrich/core';
import * as vscode from 'vscode';
import { type CsvRun, costWords, planRun } from './csv-files';

interface Row extends vscode.QuickPickItem {
  readonly field?: string;
  readonly go?: boolean;
}

/** The run with the mapping the user accepted and its cost, or undefined when they stepped away. */
export async function reviewMapping(
  start: CsvRun,
  retarget: (overrides: Readonly<Record<string, string>>) => CsvRun,
): Promise<{ run: CsvRun; plan: BulkPlan } | undefined> {
  const header = await readHeader(start.inPath);
  let run = start;
  for (;;) {
    const mapping = mapColumns(run.op, header, run.overrides);
    let plan: BulkPlan | undefined;
    let problem = mapping.problem;
    if (!problem) {
      try {
        plan = await planRun(run);
      } catch (error) {
        if (!(error instanceof BulkError)) throw error;
        problem = error.message;
      }
    }
    const rows: Row[] = [
      plan
        ? {
            label: `$(play) Enrich: spend ${plan.transactions} transaction${plan.transactions === 1 ? '' : 's'}`,
            detail: costWords(plan),
            go: true,
          }
        : { label: '$(error) Cannot run with this mapping', detail: problem },
      {
        label: 'Column mapping (pick a field to change its column)',
        kind: vscode.QuickPickItemKind.Separator,
      },
      ...run.op.inputs.map((field) => {
        const index = mapping.fields[field.name];
        return {
          label: field.name,
          description: index === undefined ? '(no column)' : `← ${header[index]}`,
          field: field.name,
        };
      }),
    ];
    const chosen = await pickOne(`${run.op.title}: ${basename(run.inPath)}`, rows);
    if (!chosen) return undefined;
    if (chosen.go && plan) return { run, plan };
    if (!chosen.field) continue;
    const column = await pickOne(
      `${run.op.title}: which column holds ${chosen.field}?`,
      header.map((label) => ({ label })),
    );
    if (column) run = retarget({ ...run.overrides, [chosen.field]: column.label });
  }
}

function basename(path: string): string {
  return path.split(/[\\/]/).pop() ?? path;
}

function pickOne<T extends vscode.QuickPickItem>(title: string, items: readonly T[]): Promise<T | undefined> {
  return new Promise((resolve) => {
    const pick = vscode.window.createQuickPick<T>();
    pick.title = title;
    pick.items = items;
    // The first row is the one Enter takes: "Enrich" when the mapping can run.
    pick.activeItems = items.slice(0, 1);
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
