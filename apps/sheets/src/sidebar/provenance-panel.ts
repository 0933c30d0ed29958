// Where the selected cell's answer came from (server: provenance/selected.ts), and undoing the last
// sidebar run (server: run/undo.ts): both free.
import type { UndoInfo } from '../server/run/undo.js';
import { $, errorText, showMessage } from './dom.js';
import { call } from './server.js';

export function renderUndo(info: UndoInfo | null): void {
  $('undo-section').hidden = info === null;
  if (info) $('undo-text').textContent = `The run of ${info.at} wrote ${info.range}.`;
}

async function undo(): Promise<void> {
  try {
    const info = await call('undoLastRun');
    renderUndo(null);
    showMessage(
      `${info.range} holds again what it held before the run. Nothing was spent; running it again costs nothing.`,
      true,
    );
  } catch (error) {
    showMessage(errorText(error));
  }
}

async function provenance(): Promise<void> {
  try {
    const found = await call('describeProvenance');
    $('provenance-text').textContent = found.cell ? `${found.cell}: ${found.text}` : found.text;
  } catch (error) {
    showMessage(errorText(error));
  }
}

export function wireProvenancePanel(): void {
  $('undo').addEventListener('click', () => void undo());
  $('provenance').addEventListener('click', () => void provenance());
}
