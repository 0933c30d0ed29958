// The catalog against the API description's Endpoints table, body fields and output records.
import { describe, expect, it } from 'vitest';
import {
  findOperation,
  inputValue,
  likelyMeaning,
  OPERATIONS,
  type OperationId,
  validate,
} from '../src/index.js';
import { ALL_IDS, op } from './api.js';

// The Endpoints table, with each operation's category and body fields from its section.
const ENDPOINTS: ReadonlyArray<{
  id: OperationId;
  title: string;
  category: 'append' | 'lookup' | 'verify';
  base: 'v2' | 'v3';
  path: string;
  body: string[];
}> = [
  {
    id: 'auto-append',
    title: 'Auto Append',
    category: 'append',
    base: 'v2',
    path: '/v2/append/auto',
    body: ['Phone', 'Email', 'FullName', 'Address1', 'Zip'],
  },
  {
    id: 'demographic-append',
    title: 'Demographic Append',
    category: 'append',
    base: 'v2',
    path: '/v2/append/demographic',
    body: ['FName', 'LName', 'Address1', 'Zip', 'Phone', 'Email', 'City', 'State'],
  },
  {
    id: 'email-append',
    title: 'Email Append',
    category: 'append',
    base: 'v3',
    path: '/v3/append/email',
    body: ['FName', 'LName', 'Address1', 'Zip'],
  },
  {
    id: 'phone-append',
    title: 'Phone Append',
    category: 'append',
    base: 'v3',
    path: '/v3/append/phone',
    body: ['FName', 'LName', 'Address1', 'Zip'],
  },
  {
    id: 'email-lookup',
    title: 'Email Lookup',
    category: 'lookup',
    base: 'v3',
    path: '/v3/lookup/email',
    body: ['Email'],
  },
  {
    id: 'phone-lookup',
    title: 'Phone Lookup',
    category: 'lookup',
    base: 'v3',
    path: '/v3/lookup/phone',
    body: ['Phone'],
  },
  {
    id: 'email-verify',
    title: 'Email Verify',
    category: 'verify',
    base: 'v2',
    path: '/v2/verify/email',
    body: ['Email'],
  },
  {
    id: 'tcpa-verify',
    title: 'TCPA Verify',
    category: 'verify',
    base: 'v2',
    path: '/v2/verify/tcpa',
    body: ['phone', 'last_name'],
  },
  {
    id: 'id-verify',
    title: 'ID Verify',
    category: 'verify',
    base: 'v2',
    path: '/v2/verify/id',
    body: ['FName', 'LName', 'Address1', 'Zip', 'Phone', 'Email'],
  },
];

const s = (...names: string[]) => Object.fromEntries(names.map((n) => [n, 'string']));
const STREET = ['House', 'PreDir', 'Street', 'StrType', 'PostDir'];
const VEHICLE = s('Make', 'Model', 'Year', 'ClassCD', 'FuelTypeCD', 'MFGCD', 'StyleCD', 'Mileages', 'ODate');

// The output records of "Resources and their fields": field name to JSON type.
const OUTPUTS: Record<OperationId, Record<string, string | Record<string, string>>> = {
  'auto-append': {
    Name: s('FName', 'LName', 'MName', 'Suffix'),
    Address: s(
      ...STREET,
      'AptType',
      'AptNbr',
      'City',
      'State',
      'Zip',
      'Z4',
      'DPC',
      'CRTE',
      'CNTY',
      'Z4Type',
      'DPV',
      'Vacant',
      'MSA',
      'CBSA',
    ),
    IDS: s('PID', 'AID', 'HHID'),
    Vehicle: VEHICLE,
    Vehicle2: VEHICLE,
    Vehicle3: VEHICLE,
    Vehicle4: VEHICLE,
  },
  'demographic-append': {
    Demographics: s(
      ...'Gender, Age, DOB, LOR, Homeowner, EHI, DwellType, Married, MedYrBld, MobHome, Pool, FirePl, SglParent, HHNBRSR, CreditCard, WealthScr, CharityDnr, MrktHomeVal, Education, Ethnicity, ChildCd, ChildAgeCd, ChildNbrCd, VehLux, VehSuv, VehTrk, PctBlk, PctWht, PctHsp, PctAsi, PctEngSpeak, PctSpnSpeak, PctAsiaSpeak, PctSFDU, PctMFDU, MHV, MOR, PctAuto, MedSchl, PctWhiteCollar, PctBlueCollar, PctOccO, DemoLvl'.split(
        ', ',
      ),
    ),
  },
  'email-append': { email: 'string', trace: 'string' },
  'phone-append': {
    Phone: 'string',
    PhoneType: 'string',
    FirstSeen: 'string',
    LastSeen: 'string',
    TelcoName: 'string',
    PHV: 'number',
    trace: 'string',
  },
  'email-lookup': {
    Name: s('FName', 'LName', 'MName'),
    Address: s(...STREET, 'AptType', 'AptNbr', 'City', 'State', 'Zip', 'CNTY', 'Deliverable', 'ValDate'),
    trace: 'string',
  },
  'phone-lookup': {
    Name: s('FName', 'LName', 'MName'),
    Address: {
      ...s(...STREET),
      AptType: 'string|null',
      ...s('City', 'State', 'Zip', 'Z4', 'CNTY'),
      Deliverable: 'boolean',
      ValDate: 'string',
    },
    trace: 'string',
  },
  'email-verify': { Email: 'string', Result: 'string' },
  'tcpa-verify': { verification_code: 'string', phone_type: 'string' },
  'id-verify': {
    IDScores: s(
      ...'ValidAddress, ValidPhone, ValidEmail, ValidName, ValidZip, Deceased, NameToPhone, NameToEmail, NameToAddress, AddressToPhone, AddressToEmail, PhoneToEmail, ZipToPhone, USLocation, ValidPhone2, NameToPhone2, AddressToPhone2, Phone2ToEmail, PhoneConfidenceScore, Phone2ConfidenceScore, AddressConfidenceScore, ValidCount, LinkageCount, RiskFlagCount, ValidationSummary, LinkageSummary, RiskFlagSummary, IDVerifyScore'.split(
        ', ',
      ),
    ),
  },
};

describe('the catalog matches the Endpoints table', () => {
  it('has the nine operations, in the order the description lists them', () => {
    expect(OPERATIONS.map((o) => o.id)).toEqual(ALL_IDS);
    expect(OPERATIONS.map((o) => o.title)).toEqual(ENDPOINTS.map((e) => e.title));
  });

  it.each(ENDPOINTS)('$title: POST {base_url$base} $path, category $category', (e) => {
    const o = op(e.id);
    expect(o.title).toBe(e.title);
    expect(o.category).toBe(e.category);
    expect(o.version).toBe(e.base);
    expect(o.path).toBe(e.path);
    // The version in the path is the version group (the description's Versioning section).
    expect(o.path.startsWith(`/${e.base}/`)).toBe(true);
  });

  it.each(ENDPOINTS)('$title takes exactly the body fields $body', (e) => {
    expect(
      op(e.id)
        .inputs.map((f) => f.name)
        .sort(),
    ).toEqual([...e.body].sort());
  });

  it('uses the single-slash Demographic Append path', () => {
    expect(op('demographic-append').path).not.toContain('//');
  });

  it('finds operations by id, title and loose spellings', () => {
    expect(findOperation('phone-lookup')?.id).toBe('phone-lookup');
    expect(findOperation('Phone Lookup')?.id).toBe('phone-lookup');
    expect(findOperation('PHONE_LOOKUP')?.id).toBe('phone-lookup');
    expect(findOperation('tcpaverify')?.id).toBe('tcpa-verify');
    expect(findOperation('phone')).toBeUndefined();
  });
});

describe('the catalog matches the output records', () => {
  it.each(ALL_IDS)('%s has every output field with its type', (id) => {
    const shape: Record<string, string | Record<string, string>> = {};
    for (const [name, field] of Object.entries(op(id).output)) {
      if (field.type === 'object') {
        shape[name] = Object.fromEntries(
          Object.entries(field.fields).map(([leaf, f]) => [leaf, f.nullable ? `${f.type}|null` : f.type]),
        );
      } else {
        shape[name] = field.nullable ? `${field.type}|null` : field.type;
      }
    }
    expect(shape).toEqual(OUTPUTS[id]);
  });

  it('marks the two Deliverable and ValDate formats apart', () => {
    const phone = op('phone-lookup').output.Address;
    const email = op('email-lookup').output.Address;
    if (phone?.type !== 'object' || email?.type !== 'object') throw new Error('Address is a group');
    expect(phone.fields.ValDate?.looks).toBe('date-mdy');
    expect(email.fields.ValDate?.looks).toBe('date-ymd');
    expect(email.fields.Deliverable?.type).toBe('string');
    expect(phone.fields.Deliverable?.type).toBe('boolean');
  });

  it('has an example input that passes its own validation for every operation', () => {
    for (const o of OPERATIONS) expect(validate(o, o.example), o.id).toMatchObject({ ok: true });
  });
});

describe('what input fields mean (looks), whatever the operation names them', () => {
  it('finds the phone and last name under TCPA Verify’s lowercase names and everywhere else', () => {
    const meaning = (id: OperationId, looks: 'phone' | 'last-name' | 'email' | 'zip') => {
      const operation = op(id);
      return operation.inputs.find((f) => f.looks === looks)?.name;
    };
    expect(meaning('tcpa-verify', 'phone')).toBe('phone');
    expect(meaning('tcpa-verify', 'last-name')).toBe('last_name');
    expect(meaning('phone-lookup', 'phone')).toBe('Phone');
    expect(meaning('phone-append', 'last-name')).toBe('LName');
    expect(meaning('email-verify', 'email')).toBe('Email');
    expect(meaning('demographic-append', 'zip')).toBe('Zip');
  });

  it('inputValue reads a validated input by meaning', () => {
    const tcpa = op('tcpa-verify');
    const checked = validate(tcpa, { phone: '(555) 010-2030', last_name: 'Doe' });
    expect(checked.ok).toBe(true);
    if (!checked.ok) return;
    expect(inputValue(tcpa.inputs, checked.input, 'phone')).toBe('5550102030');
    expect(inputValue(tcpa.inputs, checked.input, 'last-name')).toBe('Doe');
    expect(inputValue(tcpa.inputs, checked.input, 'email')).toBeUndefined();
  });

  it('every field of one meaning has the same normalisation kind', () => {
    const kinds = new Map<string, Set<string>>();
    for (const operation of OPERATIONS) {
      for (const f of operation.inputs) kinds.set(f.looks, (kinds.get(f.looks) ?? new Set()).add(f.kind));
    }
    for (const [looks, set] of kinds) expect([looks, set.size]).toEqual([looks, 1]);
  });
});

describe('likely meanings of coded values (docs/platforms.md)', () => {
  it('labels TCPA codes, line types, income bands and phone confidence, and nothing else', () => {
    expect(likelyMeaning(op('tcpa-verify'), 'phone_type', 'W')).toBe('wireless');
    expect(likelyMeaning(op('tcpa-verify'), 'verification_code', 'yp')).toBe('verified, partial name match');
    expect(likelyMeaning(op('tcpa-verify'), 'verification_code', 'Q')).toBeUndefined();
    expect(likelyMeaning(op('demographic-append'), 'EHI', 'A')).toBe('under $20,000');
    expect(likelyMeaning(op('id-verify'), 'PhoneConfidenceScore', '7')).toBe('unconfirmed');
    expect(likelyMeaning(op('id-verify'), 'ValidPhone', '7')).toBeUndefined();
    expect(likelyMeaning(op('phone-lookup'), 'State', 'W')).toBeUndefined();
    expect(likelyMeaning(op('phone-lookup'), 'NoSuchColumn', 'W')).toBeUndefined();
  });
});
