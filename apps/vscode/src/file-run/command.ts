// "Enrich File...": from the explorer's context menu or the editor title on a file it takes (.csv,
// .tsv, .txt, .xlsx, .jsonl, .ndjson: kinds.ts), or the palette (which asks for the file). The
// bulk engine and its libraries are a bundle of their own (dist/csv.js, from flow.ts), loaded on
// first use, so that activation does not parse them.
import type { BulkSummary } from '@enrich/bulk';
import type * as vscode from 'vscode';
import type { CommandFactory } from '../ctx';

export const enrichCsv: CommandFactory =
  (ctx) =>
  async (arg?: vscode.Uri): Promise<BulkSummary | undefined> => {
    // scripts/build.mjs turns this very import('./flow') into require('./csv.js').
    const { enrichCsvFlow } = await import('./flow');
    return enrichCsvFlow(ctx, arg);
  };
