// The files "Enrich File..." takes, by extension, as the bulk engine tells their kind from the name
// (@enrich/bulk's kindOfName): a CSV (its separator found in the file; .tsv is tab), an Excel
// workbook, JSON Lines. The menus (../manifest.ts), the palette's file picker and the active editor
// check read this one list. Kept apart from the engine: the activation bundle must not load it.
// (.xlsm, which the engine also reads, is left out: its output would be a workbook without its macros
// under a name that says it has them.)

export const FILE_KINDS = [
  { name: 'CSV', extensions: ['csv', 'tsv', 'txt'] },
  { name: 'Excel workbook', extensions: ['xlsx'] },
  { name: 'JSON Lines', extensions: ['jsonl', 'ndjson'] },
] as const;

export const ENRICHABLE_EXTENSIONS: readonly string[] = FILE_KINDS.flatMap((kind) => kind.extensions);

/** The menus' when clause: a file (not a folder) whose extension, in any case, is one of the list. */
export const ENRICHABLE_FILE = `resourceExtname =~ /^\\.(${ENRICHABLE_EXTENSIONS.join('|')})$/i && !explorerResourceIsFolder`;

export function isEnrichable(path: string): boolean {
  const dot = path.lastIndexOf('.');
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return dot > slash + 1 && ENRICHABLE_EXTENSIONS.includes(path.slice(dot + 1).toLowerCase());
}

/** The file picker's filters: every kind at once first (the one it opens with), then each kind. */
export function openDialogFilters(): Record<string, string[]> {
  return {
    'CSV, Excel or JSON Lines': [...ENRICHABLE_EXTENSIONS],
    ...Object.fromEntries(FILE_KINDS.map((kind) => [kind.name, [...kind.extensions]])),
  };
}
