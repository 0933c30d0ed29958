// The SDK's types, derived from the catalog (catalog.ts, declared `as const`) rather than written a
// second time: method names from the titles, inputs from the input fields, records from the output
// shapes. Types only: nothing here exists at run time.
import type { CatalogOperation, OperationId } from './catalog.js';
import type { CallError } from './errors.js';
import type { Outcome } from './response.js';

/** A leaf of a record as the SDK gives it. */
type LeafOf<Field> = Field extends { readonly type: 'number' }
  ? // The description returns missing values as empty strings, and a value may come in another
    // type: the SDK gives null for those rather than a number that is not one.
    number | null
  : Field extends { readonly type: 'boolean' }
    ? boolean | null
    : Field extends { readonly nullable: true }
      ? string | null
      : string;

/** The record of an output shape: groups are objects of leaves, leaves typed as the catalog says. */
export type RecordOf<Shape> = {
  readonly [Name in keyof Shape]: Shape[Name] extends {
    readonly type: 'object';
    readonly fields: infer Leaves;
  }
    ? { readonly [Leaf in keyof Leaves]: LeafOf<Leaves[Leaf]> }
    : LeafOf<Shape[Name]>;
};

/**
 * An operation's input: exactly its fields, each an optional string (the rules are checked at run
 * time); `undefined` is a field left out, so that `{ Phone: process.env.PHONE }` compiles under
 * exactOptionalPropertyTypes.
 */
export type InputOf<Op extends { readonly inputs: readonly { readonly name: string }[] }> = {
  readonly [Name in Op['inputs'][number]['name']]?: string | undefined;
};

/** The catalog entry of an operation id, with its literal types. */
export type OperationOf<Id extends OperationId> = Extract<CatalogOperation, { readonly id: Id }>;
/** The input of an operation by id: `OperationInput<'phone-lookup'>` is `{ Phone?: string }`. */
export type OperationInput<Id extends OperationId> = InputOf<OperationOf<Id>>;
/** The record of an operation by id: `OperationRecord<'phone-lookup'>['Address']['Deliverable']`. */
export type OperationRecord<Id extends OperationId> = RecordOf<OperationOf<Id>['output']>;

/**
 * What core's response reader gives beside a record (kind, status and the record itself aside),
 * passed through to the SDK's record results: derived from core's Outcome, so whatever the reader
 * keeps of a paid answer (unknown fields, mismatches, the raw body) reaches the caller too.
 */
export type RecordDetails = Omit<Extract<Outcome, { readonly kind: 'record' }>, 'kind' | 'status' | 'record'>;

/**
 * What one call gives: a record (200), no match (204), or an error (nothing thrown). `cached` is
 * true when the call paid nothing itself: the answer was in the client's cache, or another call
 * was buying it at that moment.
 */
export type CallResult<Record> = (
  | ({ readonly kind: 'record'; readonly record: Record } & RecordDetails)
  | { readonly kind: 'no-match' }
  | { readonly kind: 'error'; readonly error: CallError }
) & { readonly cached?: true };

type TitleRest<Title extends string> = Title extends `${infer Word} ${infer Rest}`
  ? `${Capitalize<Lowercase<Word>>}${TitleRest<Rest>}`
  : Capitalize<Lowercase<Title>>;

/** A title in camelCase: `Phone Lookup` → `phoneLookup`, `TCPA Verify` → `tcpaVerify`. */
export type MethodName<Title extends string> = Title extends `${infer Word} ${infer Rest}`
  ? `${Lowercase<Word>}${TitleRest<Rest>}`
  : Lowercase<Title>;

export interface MethodOptions {
  /** Aborting it stops the call: the promise rejects with the signal's reason, as fetch does. */
  readonly signal?: AbortSignal | undefined;
}

/** One method per operation, named from its title: `autoAppend`, ..., `idVerify`. */
export type EnrichClient = {
  readonly [Op in CatalogOperation as MethodName<Op['title']>]: (
    input: InputOf<Op>,
    options?: MethodOptions,
  ) => Promise<CallResult<RecordOf<Op['output']>>>;
};
