// What quote and enrich_file are asked for: an operation, a file, where the enriched file goes, and
// how its columns map; the arguments' schema and their reading, in one place for both tools. Both
// paths pass the allowed folders' gate here (allowed-folders.ts: the client's roots, else
// --allow-dir), once, before anything is opened.
import { defaultOutputPath } from '@enrich/bulk';
import { OPERATIONS, type Operation } from '@enrich/core';
import type { AllowedFolders } from '../allowed-folders.js';
import { operationNamed, toolName } from './names.js';

export interface FileRequest {
  readonly op: Operation;
  readonly inPath: string;
  readonly outPath: string;
  readonly map: Readonly<Record<string, string>>;
}

/** The properties quote and enrich_file share (enrich_file adds its token). */
export const FILE_PROPERTIES = {
  operation: {
    type: 'string',
    enum: OPERATIONS.map(toolName),
    description: 'The operation, by its tool name',
  },
  path: {
    type: 'string',
    description: 'The file to enrich: CSV (any separator or encoding), Excel workbook (.xlsx) or JSON Lines',
  },
  out: {
    type: 'string',
    description: 'Where the enriched file goes (default: <name>.<operation>.<ext> beside the input)',
  },
  map: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      'Input field -> column name, where the header does not name the column (e.g. {"Phone": "Mobile number"})',
  },
};

/** The request the arguments make, or why they make none (nothing was opened or spent). */
export async function fileRequest(
  args: Record<string, unknown>,
  folders: AllowedFolders,
): Promise<FileRequest | string> {
  const op = typeof args.operation === 'string' ? operationNamed(args.operation) : undefined;
  if (!op)
    return `operation must name one of the operations (${OPERATIONS.map(toolName).join(', ')}); got ${JSON.stringify(args.operation)}. Nothing was spent.`;
  if (typeof args.path !== 'string' || args.path.trim() === '')
    return 'path must name the file to enrich. Nothing was spent.';
  const input = await folders.resolve(args.path, 'path');
  if ('problem' in input) return input.problem;
  const inPath = input.path;
  let outPath = defaultOutputPath(inPath, op);
  if (typeof args.out === 'string' && args.out.trim() !== '') {
    const output = await folders.resolve(args.out, 'out');
    if ('problem' in output) return output.problem;
    outPath = output.path;
  }
  const map = columnMap(args.map);
  return typeof map === 'string' ? map : { op, inPath, outPath, map };
}

function columnMap(given: unknown): Record<string, string> | string {
  const map: Record<string, string> = {};
  if (given === undefined) return map;
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    return 'map must be an object of field -> column name. Nothing was spent.';
  }
  for (const [field, column] of Object.entries(given)) {
    if (typeof column !== 'string') return `map.${field} must be a column name. Nothing was spent.`;
    map[field] = column;
  }
  return map;
}

export function sameRequest(a: FileRequest, b: FileRequest): boolean {
  return (
    a.op.id === b.op.id &&
    a.inPath === b.inPath &&
    a.outPath === b.outPath &&
    JSON.stringify(Object.entries(a.map).sort()) === JSON.stringify(Object.entries(b.map).sort())
  );
}
