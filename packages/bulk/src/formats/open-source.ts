// Opens a run's input with the source for its kind of file (row-source.ts says what a source is).

import { checkInputFile } from '../run/file-guard.js';
import { openCsvSource } from './csv-source.js';
import { fileKindOf } from './file-kind.js';
import { openJsonlSource } from './jsonl-source.js';
import type { RowSource, SourceChoice } from './row-source.js';
import { openXlsxSource } from './xlsx-source.js';

/**
 * Opens the input and reads its header; stops, before anything is spent, if the file cannot be read
 * or is not what its name says.
 */
export async function openSource(path: string, choice: SourceChoice = {}): Promise<RowSource> {
  const sizeBytes = checkInputFile(path);
  const kind = fileKindOf(path);
  switch (kind) {
    case 'xlsx':
      return openXlsxSource(path, sizeBytes, choice.sheet);
    case 'jsonl':
      return openJsonlSource(path, sizeBytes);
    default:
      return openCsvSource(path, sizeBytes, choice);
  }
}

/** The header row of an input (for a client that lets the user edit the column mapping first). */
export async function readHeader(path: string, choice: SourceChoice = {}): Promise<string[]> {
  const source = await openSource(path, choice);
  source.close();
  return [...source.header];
}
