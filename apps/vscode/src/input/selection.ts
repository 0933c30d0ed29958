// Prefill from the editor: when the selected text looks like a phone number or an e-mail address
// (core accepts it as one), the operation's matching field starts with it.
import type { Operation } from '@enrich/core';
import { validateField } from '@enrich/core';
import * as vscode from 'vscode';
import type { Prefill } from './flow';

const PREFILLED_KINDS = new Set(['phone', 'email']);

export function prefillFor(op: Operation, text: string | undefined): Prefill {
  if (!text || text.length > 200 || /[\r\n]/.test(text.trim())) return {};
  const prefill: Record<string, string> = {};
  for (const field of op.inputs) {
    if (!PREFILLED_KINDS.has(field.kind)) continue;
    const checked = validateField(op, field.name, text);
    if (checked.ok && checked.value !== undefined) prefill[field.name] = checked.value;
  }
  return prefill;
}

export function selectedText(): string | undefined {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) return undefined;
  return editor.document.getText(editor.selection);
}
