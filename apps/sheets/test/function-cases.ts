// The nine custom functions' cases for custom-functions.test.ts: arguments as Sheets passes them, the
// request the API description says each must send (literal URL and body field names), and where
// the API's record holds each output column.
import { V2_BASE, V3_BASE } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: a reference record's shape depends on the operation; the tests index it freely
type Rec = Record<string, any>;

export interface Case {
  readonly fn: string;
  /** How many input arguments the function has (the rest of `args` are left empty, as in =AUTOAPPEND(A2,,,"FName")). */
  readonly inputs?: number;
  readonly op: string;
  readonly args: readonly unknown[];
  readonly url: string;
  readonly body: Record<string, string>;
  /** Output column → where the API's record holds it (docs/api.md, "What comes back"). */
  readonly columns: Record<string, (r: Rec) => unknown>;
}

export const JANE = { first: 'Jane', last: 'Doe', street: '12 Main St' };

export const CASES: readonly Case[] = [
  {
    fn: 'PHONELOOKUP',
    op: 'phone-lookup',
    args: [5550102030], // a phone typed as digits arrives as a number
    url: `${V3_BASE}/v3/lookup/phone`,
    body: { Phone: '5550102030' },
    columns: {
      FName: (r) => r.Name.FName,
      LName: (r) => r.Name.LName,
      MName: (r) => r.Name.MName,
      House: (r) => r.Address.House,
      City: (r) => r.Address.City,
      State: (r) => r.Address.State,
      Zip: (r) => r.Address.Zip,
      Z4: (r) => r.Address.Z4,
      Deliverable: (r) => r.Address.Deliverable,
      ValDate: (r) => r.Address.ValDate,
      trace: (r) => r.trace,
    },
  },
  {
    fn: 'EMAILLOOKUP',
    op: 'email-lookup',
    args: ['Jane.Doe@EXAMPLE.com'],
    url: `${V3_BASE}/v3/lookup/email`,
    body: { Email: 'Jane.Doe@example.com' },
    columns: {
      FName: (r) => r.Name.FName,
      LName: (r) => r.Name.LName,
      Street: (r) => r.Address.Street,
      AptNbr: (r) => r.Address.AptNbr,
      Zip: (r) => r.Address.Zip,
      Deliverable: (r) => r.Address.Deliverable,
      ValDate: (r) => r.Address.ValDate,
      trace: (r) => r.trace,
    },
  },
  {
    fn: 'EMAILVERIFY',
    op: 'email-verify',
    args: ['jane.doe@example.com'],
    url: `${V2_BASE}/v2/verify/email`,
    body: { Email: 'jane.doe@example.com' },
    columns: { Email: (r) => r.Email, Result: (r) => r.Result },
  },
  {
    fn: 'TCPAVERIFY',
    op: 'tcpa-verify',
    args: ['(555) 010-2030', 'Doe'],
    url: `${V2_BASE}/v2/verify/tcpa`,
    body: { phone: '5550102030', last_name: 'Doe' },
    columns: { verification_code: (r) => r.verification_code, phone_type: (r) => r.phone_type },
  },
  {
    fn: 'IDVERIFY',
    op: 'id-verify',
    args: [JANE.first, JANE.last, JANE.street, 2134, 5550102030, 'jane.doe@example.com'], // ZIP 02134 typed as a number
    url: `${V2_BASE}/v2/verify/id`,
    body: {
      FName: 'Jane',
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: '02134',
      Phone: '5550102030',
      Email: 'jane.doe@example.com',
    },
    columns: {
      IDVerifyScore: (r) => r.IDScores.IDVerifyScore,
      ValidationSummary: (r) => r.IDScores.ValidationSummary,
      NameToPhone: (r) => r.IDScores.NameToPhone,
      ValidCount: (r) => r.IDScores.ValidCount,
      PhoneConfidenceScore: (r) => r.IDScores.PhoneConfidenceScore,
    },
  },
  {
    fn: 'EMAILAPPEND',
    op: 'email-append',
    args: [JANE.first, JANE.last, JANE.street, '02134'],
    url: `${V3_BASE}/v3/append/email`,
    body: { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134' },
    columns: { email: (r) => r.email, trace: (r) => r.trace },
  },
  {
    fn: 'PHONEAPPEND',
    op: 'phone-append',
    args: [JANE.first, JANE.last, JANE.street, 2134],
    url: `${V3_BASE}/v3/append/phone`,
    body: { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134' },
    columns: {
      Phone: (r) => r.Phone,
      PhoneType: (r) => r.PhoneType,
      FirstSeen: (r) => r.FirstSeen,
      LastSeen: (r) => r.LastSeen,
      TelcoName: (r) => r.TelcoName,
      PHV: (r) => r.PHV,
      trace: (r) => r.trace,
    },
  },
  {
    fn: 'AUTOAPPEND',
    op: 'auto-append',
    inputs: 3,
    args: [5550102030],
    url: `${V2_BASE}/v2/append/auto`,
    body: { Phone: '5550102030' },
    columns: {
      FName: (r) => r.Name.FName,
      Suffix: (r) => r.Name.Suffix,
      City: (r) => r.Address.City,
      DPV: (r) => r.Address.DPV,
      CBSA: (r) => r.Address.CBSA,
      PID: (r) => r.IDS.PID,
      HHID: (r) => r.IDS.HHID,
      'Vehicle.Make': (r) => r.Vehicle.Make,
      'Vehicle2.Model': (r) => r.Vehicle2.Model,
      'Vehicle4.ODate': (r) => r.Vehicle4.ODate,
    },
  },
  {
    fn: 'AUTOAPPEND',
    op: 'auto-append',
    inputs: 3,
    args: ['jane.doe@example.com'],
    url: `${V2_BASE}/v2/append/auto`,
    body: { Email: 'jane.doe@example.com' },
    columns: { LName: (r) => r.Name.LName, Zip: (r) => r.Address.Zip },
  },
  {
    fn: 'AUTOAPPEND',
    op: 'auto-append',
    args: ['Jane Doe', JANE.street, 2134],
    url: `${V2_BASE}/v2/append/auto`,
    body: { FullName: 'Jane Doe', Address1: '12 Main St', Zip: '02134' },
    columns: { FName: (r) => r.Name.FName, AID: (r) => r.IDS.AID },
  },
  {
    fn: 'DEMOGRAPHICAPPEND',
    op: 'demographic-append',
    args: [JANE.first, JANE.last, JANE.street, 2134, 5550102030],
    url: `${V2_BASE}/v2/append/demographic`,
    body: { FName: 'Jane', LName: 'Doe', Address1: '12 Main St', Zip: '02134', Phone: '5550102030' },
    columns: {
      Gender: (r) => r.Demographics.Gender,
      Age: (r) => r.Demographics.Age,
      EHI: (r) => r.Demographics.EHI,
      MHV: (r) => r.Demographics.MHV,
      DemoLvl: (r) => r.Demographics.DemoLvl,
    },
  },
  {
    fn: 'DEMOGRAPHICAPPEND',
    op: 'demographic-append',
    args: [JANE.first, JANE.last, JANE.street, '02134', 'jane.doe@example.com'],
    url: `${V2_BASE}/v2/append/demographic`,
    body: {
      FName: 'Jane',
      LName: 'Doe',
      Address1: '12 Main St',
      Zip: '02134',
      Email: 'jane.doe@example.com',
    },
    columns: { Homeowner: (r) => r.Demographics.Homeowner },
  },
];
