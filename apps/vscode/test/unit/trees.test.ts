import { getOperation, OPERATIONS } from '@enrich/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/history';
import {
  COMMAND,
  HISTORY_ITEM,
  HISTORY_VIEW,
  OPERATION_ITEM,
  OPERATIONS_VIEW,
  operationCommandId,
} from '../../src/manifest';
import type { HistoryTree } from '../../src/tree/history';
import type { OperationNode, OperationsTree } from '../../src/tree/operations';
import { commands, reply, TreeItemCollapsibleState, ui } from '../vscode-stub';
import { activateWithSandbox, closeHarnesses } from './harness';

afterEach(closeHarnesses);

describe('the Operations view', () => {
  it('groups the catalog by category; each operation runs its command when clicked', async () => {
    await activateWithSandbox();
    const tree = ui.trees.get(OPERATIONS_VIEW) as OperationsTree;
    const categories = tree.getChildren();
    expect(categories.map((c) => tree.getTreeItem(c).label)).toEqual(['Append', 'Lookup', 'Verify']);
    const leaves: OperationNode[] = categories.flatMap((c) => tree.getChildren(c));
    expect(leaves.map((leaf) => tree.getTreeItem(leaf).label)).toEqual(OPERATIONS.map((op) => op.title));
    for (const leaf of leaves) {
      const item = tree.getTreeItem(leaf);
      expect(item.collapsibleState).toBe(TreeItemCollapsibleState.None);
      expect(item.contextValue).toBe(OPERATION_ITEM);
      if (leaf.kind === 'operation') expect(item.command?.command).toBe(operationCommandId(leaf.op));
    }
  });
});

describe('the History view', () => {
  it('lists calls newest first, refreshes on change, and opens a result when clicked', async () => {
    await activateWithSandbox();
    const tree = ui.trees.get(HISTORY_VIEW) as HistoryTree;
    let refreshes = 0;
    tree.onDidChangeTreeData(() => refreshes++);
    expect(tree.getChildren()).toEqual([]);

    const phoneLookup = operationCommandId(getOperation('phone-lookup'));
    reply({ type: '5550102030' });
    await commands.executeCommand(phoneLookup);
    reply({ type: '5550000204' });
    await commands.executeCommand(phoneLookup);
    expect(refreshes).toBe(2);

    const entries: HistoryEntry[] = tree.getChildren();
    const items = entries.map((e) => tree.getTreeItem(e));
    expect(items.map((i) => i.label)).toEqual(['Phone Lookup: 5550000204', 'Phone Lookup: 5550102030']);
    expect(items.map((i) => String(i.description).split(' · ')[0])).toEqual(['204 no match', '200']);
    expect(items.every((i) => i.contextValue === HISTORY_ITEM)).toBe(true);

    const open = items[1]?.command;
    expect(open?.command).toBe(COMMAND.openResult);
    const before = ui.documents.length;
    await commands.executeCommand(open?.command ?? '', ...(open?.arguments ?? []));
    expect(ui.documents.length).toBe(before + 1);
    expect(JSON.parse(ui.documents.at(-1)?.text ?? '{}').input).toEqual({ Phone: '5550102030' });
  });
});
