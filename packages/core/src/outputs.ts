// Output records as the API description's "Resources and their fields" section gives them.
// Each leaf carries its JSON type and a `looks` hint: what kind of value it holds, so that the
// sandbox can make plausible data and the OpenAPI document can state formats, without either
// of them restating field names.

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
}

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

const str = (looks: Looks, note?: string): LeafField =>
  note === undefined ? { type: 'string', looks } : { type: 'string', looks, note };
const group = (fields: Record<string, LeafField>, columns: 'leaf' | 'prefixed' = 'leaf'): GroupField => ({
  type: 'object',
  columns,
  fields,
});

const name = (withSuffix: boolean) =>
  group({
    FName: str('first-name'),
    LName: str('last-name'),
    MName: str('middle-name'),
    ...(withSuffix ? { Suffix: str('suffix') } : {}),
  });

const streetParts = {
  House: str('house'),
  PreDir: str('direction'),
  Street: str('street'),
  StrType: str('street-type'),
  PostDir: str('direction'),
};

const autoAppendAddress = group({
  ...streetParts,
  AptType: str('apt-type'),
  AptNbr: str('apt-number'),
  City: str('city'),
  State: str('state'),
  Zip: str('zip'),
  Z4: str('zip4'),
  DPC: str('digits', 'delivery point code'),
  CRTE: str('code', 'carrier route'),
  CNTY: str('digits', 'county code'),
  Z4Type: str('code'),
  DPV: str('code', 'delivery point validation code; meanings not shown'),
  Vacant: str('yn-flag', 'meanings not shown'),
  MSA: str('digits'),
  CBSA: str('digits'),
});

const emailLookupAddress = group({
  ...streetParts,
  AptType: str('apt-type'),
  AptNbr: str('apt-number'),
  City: str('city'),
  State: str('state'),
  Zip: str('zip'),
  CNTY: str('digits', 'county code'),
  Deliverable: str('yn-flag', 'string flag'),
  ValDate: str('date-ymd', 'yyyymmdd'),
});

const phoneLookupAddress = group({
  ...streetParts,
  AptType: { type: 'string', nullable: true, looks: 'apt-type' },
  City: str('city'),
  State: str('state'),
  Zip: str('zip'),
  Z4: str('zip4'),
  CNTY: str('digits', 'county code'),
  Deliverable: { type: 'boolean', looks: 'yn-flag' },
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

// Demographics: coded values whose meanings the description does not show.
const DEMOGRAPHIC_FIELDS: ReadonlyArray<readonly [string, Looks]> = [
  ['Gender', 'code'],
  ['Age', 'age'],
  ['DOB', 'birth-date'],
  ['LOR', 'count'],
  ['Homeowner', 'code'],
  ['EHI', 'income-band'],
  ['DwellType', 'code'],
  ['Married', 'code'],
  ['MedYrBld', 'year'],
  ['MobHome', 'yn-flag'],
  ['Pool', 'yn-flag'],
  ['FirePl', 'yn-flag'],
  ['SglParent', 'yn-flag'],
  ['HHNBRSR', 'count'],
  ['CreditCard', 'yn-flag'],
  ['WealthScr', 'score'],
  ['CharityDnr', 'yn-flag'],
  ['MrktHomeVal', 'code'],
  ['Education', 'code'],
  ['Ethnicity', 'code'],
  ['ChildCd', 'yn-flag'],
  ['ChildAgeCd', 'code'],
  ['ChildNbrCd', 'count'],
  ['VehLux', 'yn-flag'],
  ['VehSuv', 'yn-flag'],
  ['VehTrk', 'yn-flag'],
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
  ['DemoLvl', 'code'],
];

// IDScores: every value is a string; scores are numeric text, empty when not computed.
const ID_SCORE_FIELDS: ReadonlyArray<readonly [string, Looks]> = [
  ['ValidAddress', 'score'],
  ['ValidPhone', 'score'],
  ['ValidEmail', 'score'],
  ['ValidName', 'score'],
  ['ValidZip', 'score'],
  ['Deceased', 'score'],
  ['NameToPhone', 'score'],
  ['NameToEmail', 'score'],
  ['NameToAddress', 'score'],
  ['AddressToPhone', 'score'],
  ['AddressToEmail', 'score'],
  ['PhoneToEmail', 'score'],
  ['ZipToPhone', 'score'],
  ['USLocation', 'score'],
  ['ValidPhone2', 'score'],
  ['NameToPhone2', 'score'],
  ['AddressToPhone2', 'score'],
  ['Phone2ToEmail', 'score'],
  ['PhoneConfidenceScore', 'confidence'],
  ['Phone2ConfidenceScore', 'confidence'],
  ['AddressConfidenceScore', 'score'],
  ['ValidCount', 'decimal'],
  ['LinkageCount', 'score'],
  ['RiskFlagCount', 'score'],
  ['ValidationSummary', 'pass-fail'],
  ['LinkageSummary', 'pass-fail'],
  ['RiskFlagSummary', 'pass-fail'],
  ['IDVerifyScore', 'score'],
];

const groupOf = (entries: ReadonlyArray<readonly [string, Looks]>) =>
  group(Object.fromEntries(entries.map(([fieldName, looks]) => [fieldName, str(looks)])));

export const autoAppendOutput: OutputShape = {
  Name: name(true),
  Address: autoAppendAddress,
  IDS: group({ PID: str('identifier'), AID: str('identifier'), HHID: str('identifier') }),
  Vehicle: vehicle,
  Vehicle2: vehicle,
  Vehicle3: vehicle,
  Vehicle4: vehicle,
};

export const demographicAppendOutput: OutputShape = { Demographics: groupOf(DEMOGRAPHIC_FIELDS) };

export const emailAppendOutput: OutputShape = { email: str('email'), trace: str('identifier') };

export const phoneAppendOutput: OutputShape = {
  Phone: str('phone-formatted'),
  PhoneType: str('phone-type'),
  FirstSeen: str('date-mdy', 'month/day/year'),
  LastSeen: str('date-mdy', 'month/day/year'),
  TelcoName: str('carrier'),
  PHV: { type: 'number', looks: 'count', note: 'integer' },
  trace: str('identifier'),
};

export const emailLookupOutput: OutputShape = {
  Name: name(false),
  Address: emailLookupAddress,
  trace: str('identifier'),
};

export const phoneLookupOutput: OutputShape = {
  Name: name(false),
  Address: phoneLookupAddress,
  trace: str('identifier'),
};

export const emailVerifyOutput: OutputShape = {
  Email: str('email'),
  Result: str('result-code', 'allowed values not shown'),
};

export const tcpaVerifyOutput: OutputShape = {
  verification_code: str('tcpa-code', 'short code; allowed values not shown'),
  phone_type: str('line-type', 'short code; allowed values not shown'),
};

export const idVerifyOutput: OutputShape = { IDScores: groupOf(ID_SCORE_FIELDS) };
