// The one description of the API's nine operations (docs/api.md). Everything else —
// validation, requests, responses, the sandbox, OpenAPI, the clients' prompts and columns —
// is derived from this table.
//
// Decisions where the description is silent ("not shown"), kept here so every client agrees:
// - City/State as an alternative to Zip: only Demographic Append lists City and State as
//   parameters, so only there may they replace Zip. Email Append, Phone Append and ID Verify
//   (whose address check needs Zip) take Zip and never send City/State.
// - Email Append: its four fields are "each required when the others are included"; a request
//   with none of them asks for nothing, so all four are required.
// - ID Verify: every item is optional, but at least one must be given, and Address1 needs Zip.
// - Bounds: the "Input fields" table's bounds apply to every operation taking the field (FName 15,
//   LName 20 except Phone Append's 15, Address1 64 except Phone Append's 60, Email 100); FullName
//   and TCPA's last_name have no stated bound and get none.
// - Email's "e-mail address": one the service can deliver to, decided and written down in email.ts
//   (dot-atom before the @, a host name with a letters-only top-level domain after it,
//   internationalised addresses accepted, wrappings such as "mailto:" refused rather than stripped).

import type { InputField } from './fields.js';
import * as F from './fields.js';
import { squash } from './normalise.js';
import type { OutputShape } from './outputs.js';
import * as O from './outputs.js';
import type { Rule } from './rules.js';

export type Category = 'append' | 'lookup' | 'verify';
/** v2 operations live under {base_url}, v3 operations under {base_url_v3}. */
export type VersionGroup = 'v2' | 'v3';

export interface Operation {
  readonly id: OperationId;
  readonly title: string;
  readonly category: Category;
  readonly version: VersionGroup;
  readonly path: string;
  /** Input fields in the order people are asked for them. */
  readonly inputs: readonly InputField[];
  readonly rules: readonly Rule[];
  readonly output: OutputShape;
  /** Output columns shown when the user does not choose. */
  readonly defaultColumns: readonly string[];
  /** An input the sandbox answers with a record; used by demos, docs and OpenAPI examples. */
  readonly example: Readonly<Record<string, string>>;
  /**
   * What it returns and when to use it, in one line an assistant can choose the operation by (the
   * MCP tools and VS Code chat tools start their description with it).
   */
  readonly purpose: string;
}

export type OperationId =
  | 'auto-append'
  | 'demographic-append'
  | 'email-append'
  | 'phone-append'
  | 'email-lookup'
  | 'phone-lookup'
  | 'email-verify'
  | 'tcpa-verify'
  | 'id-verify';

const NAME_COLUMNS = ['FName', 'LName'];
const ADDRESS_COLUMNS = ['House', 'PreDir', 'Street', 'StrType', 'PostDir', 'City', 'State', 'Zip'];

// Declared `as const` so that its literal types (ids, titles, field names, output shapes) stay
// known to the compiler: the SDK derives its method names, input and record types from them
// (client-types.ts). Everything else reads it through OPERATIONS, typed as plain Operations.
const CATALOG = [
  {
    id: 'auto-append',
    title: 'Auto Append',
    category: 'append',
    version: 'v2',
    path: '/v2/append/auto',
    inputs: [F.Phone(), F.Email(), F.FullName(), F.Address1(64), F.Zip()],
    rules: [
      { kind: 'one-of', groups: [['Phone'], ['Email'], ['FullName', 'Address1', 'Zip']] },
      { kind: 'together', fields: ['FullName', 'Address1', 'Zip'] },
    ],
    output: O.autoAppendOutput,
    defaultColumns: [
      ...NAME_COLUMNS,
      ...ADDRESS_COLUMNS,
      'Z4',
      'PID',
      'Vehicle.Make',
      'Vehicle.Model',
      'Vehicle.Year',
    ],
    purpose:
      'Finds the person behind a phone, an e-mail, or a full name with address and ZIP: their name, postal address, household identifiers and up to four vehicles. Use it to complete a contact known by one of those.',
    example: { Phone: '5550102030' },
  },
  {
    id: 'demographic-append',
    title: 'Demographic Append',
    category: 'append',
    version: 'v2',
    // The description shows this path once with a doubled slash; its sample uses one.
    path: '/v2/append/demographic',
    inputs: [F.FName(), F.LName(20), F.Address1(64), F.Zip(), F.City(), F.State(), F.Phone(), F.Email()],
    rules: [
      { kind: 'required', fields: ['FName', 'LName', 'Address1'] },
      // "Either City and State, or Zip": both optional otherwise, so a City beside a Zip is fine.
      { kind: 'one-of', groups: [['Zip'], ['City', 'State']] },
      { kind: 'one-of', groups: [['Phone'], ['Email']] },
    ],
    output: O.demographicAppendOutput,
    defaultColumns: ['Gender', 'Age', 'Homeowner', 'EHI', 'Married', 'Education', 'MHV'],
    purpose:
      'Adds demographics (gender, age, income band, home ownership, length of residence, household and neighbourhood figures) to a person given by name and address plus a phone or e-mail. Use it to profile a contact you already have.',
    example: { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134', Phone: '5550102030' },
  },
  {
    id: 'email-append',
    title: 'Email Append',
    category: 'append',
    version: 'v3',
    path: '/v3/append/email',
    inputs: [F.FName(), F.LName(20), F.Address1(64), F.Zip()],
    rules: [{ kind: 'required', fields: ['FName', 'LName', 'Address1', 'Zip'] }],
    output: O.emailAppendOutput,
    defaultColumns: ['email'],
    purpose:
      "Finds a person's e-mail address from their name, address and ZIP. Use it when you have a postal contact and need an e-mail.",
    example: { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134' },
  },
  {
    id: 'phone-append',
    title: 'Phone Append',
    category: 'append',
    version: 'v3',
    path: '/v3/append/phone',
    inputs: [F.FName(), F.LName(15), F.Address1(60), F.Zip()],
    rules: [{ kind: 'required', fields: ['FName', 'LName', 'Address1', 'Zip'] }],
    output: O.phoneAppendOutput,
    defaultColumns: ['Phone', 'PhoneType', 'TelcoName', 'LastSeen'],
    purpose:
      "Finds a person's phone number, with its line type, carrier and the dates it was seen, from their name, address and ZIP. Use it when you have a postal contact and need a phone.",
    example: { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134' },
  },
  {
    id: 'email-lookup',
    title: 'Email Lookup',
    category: 'lookup',
    version: 'v3',
    path: '/v3/lookup/email',
    inputs: [F.Email()],
    rules: [{ kind: 'required', fields: ['Email'] }],
    output: O.emailLookupOutput,
    defaultColumns: [...NAME_COLUMNS, ...ADDRESS_COLUMNS],
    purpose:
      "Says who an e-mail address belongs to: the owner's name and postal address. Use it when you have only an e-mail.",
    example: { Email: 'jane.doe@example.com' },
  },
  {
    id: 'phone-lookup',
    title: 'Phone Lookup',
    category: 'lookup',
    version: 'v3',
    path: '/v3/lookup/phone',
    inputs: [F.Phone()],
    rules: [{ kind: 'required', fields: ['Phone'] }],
    output: O.phoneLookupOutput,
    defaultColumns: [...NAME_COLUMNS, ...ADDRESS_COLUMNS],
    purpose:
      "Says who a phone number belongs to: the owner's name and postal address (with deliverability). Use it when you have only a phone.",
    example: { Phone: '5550102030' },
  },
  {
    id: 'email-verify',
    title: 'Email Verify',
    category: 'verify',
    version: 'v2',
    path: '/v2/verify/email',
    inputs: [F.Email()],
    rules: [{ kind: 'required', fields: ['Email'] }],
    output: O.emailVerifyOutput,
    defaultColumns: ['Result'],
    purpose:
      'Checks whether an e-mail address can receive mail, as one result code (such as VERIFIED, UNDELIVERABLE, CATCHALL); says nothing about its owner. Use it to clean a mailing list.',
    example: { Email: 'jane.doe@example.com' },
  },
  {
    id: 'tcpa-verify',
    title: 'TCPA Verify',
    category: 'verify',
    version: 'v2',
    path: '/v2/verify/tcpa',
    inputs: [F.tcpaPhone(), F.tcpaLastName()],
    rules: [{ kind: 'required', fields: ['phone', 'last_name'] }],
    output: O.tcpaVerifyOutput,
    defaultColumns: ['verification_code', 'phone_type'],
    purpose:
      'Checks a phone number against a last name before calling or texting (TCPA): a code saying whether the phone belongs to that person, and the line type (wireless, landline, VoIP). Use it before telemarketing to a number.',
    example: { phone: '5550102030', last_name: 'Doe' },
  },
  {
    id: 'id-verify',
    title: 'ID Verify',
    category: 'verify',
    version: 'v2',
    path: '/v2/verify/id',
    inputs: [F.FName(), F.LName(20), F.Address1(64), F.Zip(), F.Phone(), F.Email()],
    rules: [
      { kind: 'one-of', groups: [['FName'], ['LName'], ['Address1'], ['Zip'], ['Phone'], ['Email']] },
      { kind: 'needs', field: 'Address1', groups: [['Zip']] },
    ],
    output: O.idVerifyOutput,
    defaultColumns: ['IDVerifyScore', 'ValidationSummary', 'LinkageSummary', 'RiskFlagSummary'],
    purpose:
      "Scores whether a person's name, address, phone and e-mail are valid and belong together, with risk flags and pass/fail summaries; adds no new data. Use it to check that a lead is a real, consistent identity.",
    example: {
      FName: 'Jane',
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: '02134',
      Phone: '5550102030',
      Email: 'jane.doe@example.com',
    },
  },
] as const satisfies readonly Operation[];

/** The nine operations with their literal types, for deriving types (see client-types.ts). */
export type CatalogOperation = (typeof CATALOG)[number];

export const OPERATIONS: readonly Operation[] = CATALOG;

const BY_ID = new Map<string, Operation>(OPERATIONS.map((op) => [op.id, op]));

/**
 * Finds an operation by id (`phone-lookup`), title (`Phone Lookup`) or a loose spelling of either
 * (`phonelookup`, `PHONE_LOOKUP`).
 */
export function findOperation(name: string): Operation | undefined {
  const exact = BY_ID.get(name);
  if (exact) return exact;
  const loose = squash(name);
  return OPERATIONS.find((op) => squash(op.id) === loose || squash(op.title) === loose);
}

export function getOperation(id: OperationId): Operation {
  const op = BY_ID.get(id);
  if (!op) throw new Error(`Unknown operation "${id}"`);
  return op;
}
