// What the build needs from the catalog to write the top-level functions' JSDoc and the manifest.
// Bundled for Node by scripts/build.mjs and imported there; nothing here runs in Apps Script.
import { DEFAULT_BASE_URL, DEFAULT_BASE_URL_V3, PERMITTED_USE } from '@enrich/core/universal';
import { argHelp, FUNCTIONS, rulesHelp } from './spec.js';

export interface FunctionDoc {
  readonly name: string;
  readonly summary: string;
  readonly params: readonly { readonly name: string; readonly help: string }[];
  readonly returns: string;
}

export const functionDocs: readonly FunctionDoc[] = FUNCTIONS.map((f) => ({
  name: f.name,
  summary:
    `${f.op.title} (${f.op.category}, POST ${f.op.path}): one row of results per input row; ${rulesHelp(f.op)}. ` +
    'Spends one transaction per distinct input not answered before; answers are cached for 6 hours.',
  params: [
    ...f.args.map((a) => ({ name: a.name, help: argHelp(a) })),
    {
      name: 'fields',
      help: `Optional. Output columns, comma-separated; default "${f.op.defaultColumns.join(',')}".`,
    },
    { name: 'header', help: 'Optional. TRUE puts a header row first.' },
  ],
  returns:
    'Rows of the chosen columns: "no match", "Invalid: ..." or "Error: ..." in the first column where there is no record.',
}));

export const defaultBaseUrls: readonly string[] = [DEFAULT_BASE_URL, DEFAULT_BASE_URL_V3];

/** The sidebar's footer says it: core's one wording of what the data may be used for. */
export const permittedUse: string = PERMITTED_USE;
