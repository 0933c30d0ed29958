// Output records as the API description's "Resources and their fields" section gives them.
// Each leaf carries its JSON type and a `looks` hint: what kind of value it holds, so that the
// sandbox can make plausible data and the OpenAPI document can state formats, without either
// of them restating field names.
//
// The shapes below keep their literal types (field names, leaf types, nullability): the SDK's record
// types are derived from them (see client-types.ts), so they are declared with `satisfies`, never
// widened by an annotation.
import type { InputLooks } from './fields.js';

export type Looks =
  | 'first-name'
  | 'last-name'
  | 'middle-name'
  | 'suffix'
  | 'house'
  | 'direction'
  | 'street'
  | 'street-type'
  | 'apt-type'
  | 'apt-number'
  | 'city'
  | 'state'
  | 'zip'
  | 'zip4'
  | 'digits'
  | 'code'
  | 'yn-flag'
  | 'date-ymd'
  | 'date-mdy'
  | 'identifier'
  | 'email'
  | 'phone-formatted'
  | 'phone-type'
  | 'carrier'
  | 'score'
  | 'decimal'
  | 'percent'
  | 'pass-fail'
  | 'result-code'
  | 'tcpa-code'
  | 'line-type'
  | 'vehicle-make'
  | 'vehicle-model'
  | 'year'
  | 'mileage'
  | 'count'
  | 'age'
  | 'birth-date'
  | 'income-band'
  | 'confidence';

export interface LeafField {
  readonly type: 'string' | 'number' | 'boolean';
  /** The description says this field may be null; every other missing value reads as "". */
  readonly nullable?: boolean;
  readonly looks: Looks;
  readonly note?: string;
  /**
   * A score computed from input items: empty unless, for each inner list, at least one of its kinds
   * was supplied (ID Verify's `NameToEmail` needs a name and an e-mail). An empty inner list can
   * never be met: a score of an item no input can give.
   */
  readonly computedFrom?: readonly (readonly InputLooks[])[];
  /**
   * A coded field that a bulk run's breakdown counts (breakdown.ts): each value with its count
   * (`values`), or numeric scores counted in bands of 20 (`bands`).
   */
  readonly breakdown?: CountedAs;
}

export type CountedAs = 'values' | 'bands';

export interface GroupField {
  readonly type: 'object';
  /**
   * How its leaves are named as flat columns: `leaf` uses the leaf's own name (`City`), `prefixed`
   * uses `Group.Leaf` (`Vehicle2.Make`), for groups that repeat the same leaf names.
   */
  readonly columns: 'leaf' | 'prefixed';
  readonly fields: Readonly<Record<string, LeafField>>;
}

export type OutputField = LeafField | GroupField;
export type OutputShape = Readonly<Record<string, OutputField>>;

/** A text leaf; its type stays the literal 'string' for the derived record types. */
export interface StringLeaf extends LeafField {
  readonly type: 'string';
}

const str = (looks: Looks, note?: string): StringLeaf =>
  note === undefined ? { type: 'string', looks } : { type: 'string', looks, note };
/** A leaf that a run's breakdown counts. */
const counted = <const Leaf extends LeafField>(leaf: Leaf, how: CountedAs = 'values') =>
  ({ ...leaf, breakdown: how }) as const;
const group = <const Fields extends Record<string, LeafField>>(
  fields: Fields,
  columns: 'leaf' | 'prefixed' = 'leaf',
) => ({ type: 'object', columns, fields }) as const satisfies GroupField;

const nameFields = { FName: str('first-name'), LName: str('last-name'), MName: str('middle-name') };

const streetParts = {
  House: str('house'),
  PreDir: str('direction'),
  Street: str('street'),
  StrType: str('street-type'),
  PostDir: str('direction'),
};

/** After the street: the apartment, then city, state and ZIP (the addresses that give an AptNbr). */
const unitAndPlace = {
  AptType: str('apt-type'),
  AptNbr: str('apt-number'),
  City: str('city'),
  State: str('state'),
  Zip: str('zip'),
};

const autoAppendAddress = group({
  ...streetParts,
  ...unitAndPlace,
  Z4: str('zip4'),
  DPC: str('digits', 'delivery point code'),
  CRTE: str('code', 'carrier route'),
  CNTY: str('digits', 'county code'),
  Z4Type: str('code'),
  DPV: counted(str('code', 'delivery point validation code; meanings not shown')),
  Vacant: counted(str('yn-flag', 'meanings not shown')),
  MSA: str('digits'),
  CBSA: str('digits'),
});

const emailLookupAddress = group({
  ...streetParts,
  ...unitAndPlace,
  CNTY: str('digits', 'county code'),
  Deliverable: counted(str('yn-flag', 'string flag')),
  ValDate: str('date-ymd', 'yyyymmdd'),
});

const phoneLookupAddress = group({
  ...streetParts,
  AptType: { type: 'string', nullable: true, looks: 'apt-type' } as const,
  City: str('city'),
  State: str('state'),
  Zip: str('zip'),
  Z4: str('zip4'),
  CNTY: str('digits', 'county code'),
  Deliverable: counted({ type: 'boolean', looks: 'yn-flag' } as const),
  ValDate: str('date-mdy', 'month/day/year'),
});

const vehicle = group(
  {
    Make: str('vehicle-make'),
    Model: str('vehicle-model'),
    Year: str('year'),
    ClassCD: str('code', 'meanings not shown'),
    FuelTypeCD: str('code', 'meanings not shown'),
    MFGCD: str('code'),
    StyleCD: str('code'),
    Mileages: str('mileage'),
    ODate: str('date-ymd', 'yyyymmdd'),
  },
  'prefixed',
);

type Entry =
  | readonly [string, Looks]
  | readonly [string, Looks, readonly (readonly InputLooks[])[] | undefined]
  | readonly [string, Looks, readonly (readonly InputLooks[])[] | undefined, CountedAs];

/** The tail of a group row that its run's breakdown counts by value (no computedFrom). */
const COUNTED = [undefined, 'values'] as const;

// Demographics: coded values whose meanings the description does not show. The coded ones (codes,
// flags, bands) are counted in a run's breakdown.
const DEMOGRAPHIC_FIELDS = [
  ['Gender', 'code', ...COUNTED],
  ['Age', 'age'],
  ['DOB', 'birth-date'],
  ['LOR', 'count'],
  ['Homeowner', 'code', ...COUNTED],
  ['EHI', 'income-band', ...COUNTED],
  ['DwellType', 'code', ...COUNTED],
  ['Married', 'code', ...COUNTED],
  ['MedYrBld', 'year'],
  ['MobHome', 'yn-flag', ...COUNTED],
  ['Pool', 'yn-flag', ...COUNTED],
  ['FirePl', 'yn-flag', ...COUNTED],
  ['SglParent', 'yn-flag', ...COUNTED],
  ['HHNBRSR', 'count'],
  ['CreditCard', 'yn-flag', ...COUNTED],
  ['WealthScr', 'score'],
  ['CharityDnr', 'yn-flag', ...COUNTED],
  ['MrktHomeVal', 'code', ...COUNTED],
  ['Education', 'code', ...COUNTED],
  ['Ethnicity', 'code', ...COUNTED],
  ['ChildCd', 'yn-flag', ...COUNTED],
  ['ChildAgeCd', 'code', ...COUNTED],
  ['ChildNbrCd', 'count'],
  ['VehLux', 'yn-flag', ...COUNTED],
  ['VehSuv', 'yn-flag', ...COUNTED],
  ['VehTrk', 'yn-flag', ...COUNTED],
  ['PctBlk', 'percent'],
  ['PctWht', 'percent'],
  ['PctHsp', 'percent'],
  ['PctAsi', 'percent'],
  ['PctEngSpeak', 'percent'],
  ['PctSpnSpeak', 'percent'],
  ['PctAsiaSpeak', 'percent'],
  ['PctSFDU', 'percent'],
  ['PctMFDU', 'percent'],
  ['MHV', 'digits'],
  ['MOR', 'digits'],
  ['PctAuto', 'percent'],
  ['MedSchl', 'decimal'],
  ['PctWhiteCollar', 'percent'],
  ['PctBlueCollar', 'percent'],
  ['PctOccO', 'percent'],
  ['DemoLvl', 'code', ...COUNTED],
] as const satisfies readonly Entry[];

// IDScores: every value is a string; scores are numeric text, "empty when not computed". A score
// about an item the request did not supply is not computed: `computedFrom` says which items each
// one needs (a name is a first or a last name; Phone2 is a second phone that no input supplies, so
// its scores are always empty). The totals and summaries are computed from whatever was supplied.
const NAME: readonly InputLooks[] = ['first-name', 'last-name'];
const ADDRESS: readonly InputLooks[] = ['address'];
const ZIP: readonly InputLooks[] = ['zip'];
const PHONE: readonly InputLooks[] = ['phone'];
const EMAIL: readonly InputLooks[] = ['email'];
const PHONE2: readonly InputLooks[] = [];
const ID_SCORE_FIELDS = [
  ['ValidAddress', 'score', [ADDRESS]],
  ['ValidPhone', 'score', [PHONE]],
  ['ValidEmail', 'score', [EMAIL]],
  ['ValidName', 'score', [NAME]],
  ['ValidZip', 'score', [ZIP]],
  ['Deceased', 'score', [NAME]],
  ['NameToPhone', 'score', [NAME, PHONE]],
  ['NameToEmail', 'score', [NAME, EMAIL]],
  ['NameToAddress', 'score', [NAME, ADDRESS]],
  ['AddressToPhone', 'score', [ADDRESS, PHONE]],
  ['AddressToEmail', 'score', [ADDRESS, EMAIL]],
  ['PhoneToEmail', 'score', [PHONE, EMAIL]],
  ['ZipToPhone', 'score', [ZIP, PHONE]],
  ['USLocation', 'score', [[...ADDRESS, ...ZIP, ...PHONE]]],
  ['ValidPhone2', 'score', [PHONE2]],
  ['NameToPhone2', 'score', [NAME, PHONE2]],
  ['AddressToPhone2', 'score', [ADDRESS, PHONE2]],
  ['Phone2ToEmail', 'score', [PHONE2, EMAIL]],
  ['PhoneConfidenceScore', 'confidence', [PHONE]],
  ['Phone2ConfidenceScore', 'confidence', [PHONE2]],
  ['AddressConfidenceScore', 'score', [ADDRESS]],
  ['ValidCount', 'decimal'],
  ['LinkageCount', 'score'],
  ['RiskFlagCount', 'score'],
  ['ValidationSummary', 'pass-fail', ...COUNTED],
  ['LinkageSummary', 'pass-fail', ...COUNTED],
  ['RiskFlagSummary', 'pass-fail', ...COUNTED],
  ['IDVerifyScore', 'score', undefined, 'bands'],
] as const satisfies readonly Entry[];

/** A group of text leaves from [name, looks, computedFrom?, breakdown?] rows, keeping the names as its keys. */
const groupOf = <const Entries extends readonly Entry[]>(entries: Entries) =>
  group(
    Object.fromEntries(
      entries.map(([fieldName, looks, computedFrom, breakdown]) => {
        const leaf: LeafField = computedFrom === undefined ? str(looks) : { ...str(looks), computedFrom };
        return [fieldName, breakdown === undefined ? leaf : { ...leaf, breakdown }];
      }),
    ) as { readonly [K in Entries[number][0]]: StringLeaf },
  );

export const autoAppendOutput = {
  Name: group({ ...nameFields, Suffix: str('suffix') }),
  Address: autoAppendAddress,
  IDS: group({ PID: str('identifier'), AID: str('identifier'), HHID: str('identifier') }),
  Vehicle: vehicle,
  Vehicle2: vehicle,
  Vehicle3: vehicle,
  Vehicle4: vehicle,
} satisfies OutputShape;

export const demographicAppendOutput = { Demographics: groupOf(DEMOGRAPHIC_FIELDS) } satisfies OutputShape;

export const emailAppendOutput = { email: str('email'), trace: str('identifier') } satisfies OutputShape;

export const phoneAppendOutput = {
  Phone: str('phone-formatted'),
  PhoneType: counted(str('phone-type')),
  FirstSeen: str('date-mdy', 'month/day/year'),
  LastSeen: str('date-mdy', 'month/day/year'),
  TelcoName: str('carrier'),
  PHV: { type: 'number', looks: 'count', note: 'integer' } as const,
  trace: str('identifier'),
} satisfies OutputShape;

export const emailLookupOutput = {
  Name: group(nameFields),
  Address: emailLookupAddress,
  trace: str('identifier'),
} satisfies OutputShape;

export const phoneLookupOutput = {
  Name: group(nameFields),
  Address: phoneLookupAddress,
  trace: str('identifier'),
} satisfies OutputShape;

export const emailVerifyOutput = {
  Email: str('email'),
  Result: counted(str('result-code', 'allowed values not shown')),
} satisfies OutputShape;

export const tcpaVerifyOutput = {
  verification_code: counted(str('tcpa-code', 'short code; allowed values not shown')),
  phone_type: counted(str('line-type', 'short code; allowed values not shown')),
} satisfies OutputShape;

export const idVerifyOutput = { IDScores: groupOf(ID_SCORE_FIELDS) } satisfies OutputShape;
