// The Operations view: the catalog's operations grouped by category; clicking one runs it.
import { type Category, OPERATIONS, type Operation } from '@enrich/core';
import * as vscode from 'vscode';
import { OPERATION_ITEM, operationCommandId } from '../manifest';

export type OperationNode =
  | { readonly kind: 'category'; readonly category: Category }
  | { readonly kind: 'operation'; readonly op: Operation };

const CATEGORY_ICON: Record<Category, string> = { append: 'add', lookup: 'search', verify: 'verified' };

export class OperationsTree implements vscode.TreeDataProvider<OperationNode> {
  getChildren(node?: OperationNode): OperationNode[] {
    if (!node) {
      const categories = [...new Set(OPERATIONS.map((op) => op.category))];
      return categories.map((category) => ({ kind: 'category', category }));
    }
    if (node.kind === 'operation') return [];
    return OPERATIONS.filter((op) => op.category === node.category).map((op) => ({ kind: 'operation', op }));
  }

  getTreeItem(node: OperationNode): vscode.TreeItem {
    if (node.kind === 'category') {
      const item = new vscode.TreeItem(capitalise(node.category), vscode.TreeItemCollapsibleState.Expanded);
      item.id = `category:${node.category}`;
      item.iconPath = new vscode.ThemeIcon(CATEGORY_ICON[node.category]);
      return item;
    }
    const { op } = node;
    const item = new vscode.TreeItem(op.title, vscode.TreeItemCollapsibleState.None);
    item.id = `operation:${op.id}`;
    item.description = op.path;
    item.tooltip = `${op.title}: POST ${op.path}\nInputs: ${op.inputs.map((f) => f.name).join(', ')}`;
    item.contextValue = OPERATION_ITEM;
    item.iconPath = new vscode.ThemeIcon('play');
    item.command = { command: operationCommandId(op), title: `Run ${op.title}` };
    return item;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
