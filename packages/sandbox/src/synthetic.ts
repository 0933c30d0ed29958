// Makes the deterministic synthetic record for an operation and input: it walks the operation's
// output shape from the core catalog and fills each field by its `looks` hint, so every field the
// API describes is present with its type, and nothing here restates field names.
import {
  type CleanInput,
  type GroupField,
  type InputLooks,
  inputValue,
  type LeafField,
  type Looks,
  type Operation,
} from '@enrich/core';
import * as P from './pools.js';
import { type Random, seededRandom } from './random.js';

type Json = string | number | boolean | null | { [key: string]: Json };

/** Facts one record keeps consistent across its fields: one person, one place. */
interface Person {
  first: string;
  last: string;
  middle: string;
  suffix: string;
  place: P.Place;
  email: string;
  /** The phone the input gave, if any: an appended phone echoes it. */
  phone: string | undefined;
  age: number;
  formula: boolean;
  /** What the input supplied, by meaning: ID Verify scores items only when they were given. */
  given: Given;
}

type Given = (looks: InputLooks) => string | undefined;

/** Ages and birth dates agree as of this year; a fixed year keeps records the same from year to year. */
const REFERENCE_YEAR = 2026;

export function syntheticRecord(op: Operation, input: CleanInput, seed: string, formula: boolean): Json {
  const random = seededRandom(`${seed}|${op.id}|${JSON.stringify(input)}`);
  const person = personFor((looks) => inputValue(op.inputs, input, looks), random, formula);
  // Drawn from its own sequence so that adding it left every other field as it was.
  person.age = seededRandom(`${seed}|age|${JSON.stringify(input)}`).int(18, 90);
  const record: { [key: string]: Json } = {};
  const vehicles = random.int(0, 4);
  let vehicleSlot = 0;
  for (const [name, field] of Object.entries(op.output)) {
    if (field.type !== 'object') {
      record[name] = leafValue(field, random, person);
      continue;
    }
    // Unused vehicle slots carry empty strings (docs/api.md); other groups are always filled.
    const isVehicle = field.columns === 'prefixed';
    const empty = isVehicle && vehicleSlot++ >= vehicles;
    record[name] = groupValue(field, random, person, empty);
  }
  return record;
}

function personFor(given: Given, random: Random, formula: boolean): Person {
  const fromFullName = given('full-name')?.split(' ');
  const first = given('first-name') ?? fromFullName?.[0] ?? random.pick(P.FIRST_NAMES);
  const last = given('last-name') ?? fromFullName?.slice(1).join(' ') ?? random.pick(P.LAST_NAMES);
  const zip = given('zip');
  const place = P.PLACES.find((p) => p.zip === zip) ?? { ...random.pick(P.PLACES), ...(zip ? { zip } : {}) };
  const local = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
  return {
    first,
    last,
    middle: random.chance(0.6) ? String.fromCharCode(65 + random.int(0, 25)) : '',
    suffix: random.chance(0.1) ? random.pick(P.SUFFIXES) : '',
    place,
    email: given('email') ?? `${local}${random.int(1, 99)}@${random.pick(P.MAIL_DOMAINS)}`,
    phone: given('phone'),
    age: 0,
    formula,
    given,
  };
}

function groupValue(field: GroupField, random: Random, person: Person, empty: boolean): Json {
  const group: { [key: string]: Json } = {};
  const make = random.pick(P.VEHICLES);
  const hasApartment = random.chance(0.25);
  for (const [leaf, spec] of Object.entries(field.fields)) {
    if (empty || !computable(spec, person.given)) {
      group[leaf] = '';
    } else if (spec.looks === 'vehicle-make') {
      group[leaf] = make[0];
    } else if (spec.looks === 'vehicle-model') {
      group[leaf] = make[1];
    } else if ((spec.looks === 'apt-type' || spec.looks === 'apt-number') && !hasApartment) {
      group[leaf] = spec.nullable && random.chance(0.5) ? null : '';
    } else {
      group[leaf] = leafValue(spec, random, person);
    }
  }
  return group;
}

/** Scores are "empty when not computed": a score needs each of its items among the inputs. */
function computable(spec: LeafField, given: Given): boolean {
  if (spec.computedFrom === undefined) return true;
  return spec.computedFrom.every((anyOf) => anyOf.some((looks) => given(looks) !== undefined));
}

function leafValue(spec: LeafField, random: Random, person: Person): Json {
  if (spec.type === 'number') return random.int(1, 9);
  if (spec.type === 'boolean') return random.chance(0.85);
  if (person.formula && isName(spec.looks)) return random.pick(P.FORMULA_VALUES);
  return text(spec.looks, random, person);
}

function isName(looks: Looks): boolean {
  return looks === 'first-name' || looks === 'last-name' || looks === 'middle-name' || looks === 'street';
}

// A table, one case for each of core's Looks, read best whole (so over 80 lines): the compiler
// checks every Looks has its case, as the function must return a string.
function text(looks: Looks, random: Random, person: Person): string {
  switch (looks) {
    case 'first-name':
      return person.first.toUpperCase();
    case 'last-name':
      return person.last.toUpperCase();
    case 'middle-name':
      return person.middle;
    case 'suffix':
      return person.suffix;
    case 'house':
      return String(random.int(1, 9999));
    case 'direction':
      return random.chance(0.15) ? random.pick(P.DIRECTIONS) : '';
    case 'street':
      return random.pick(P.STREETS).toUpperCase();
    case 'street-type':
      return random.pick(P.STREET_TYPES);
    case 'apt-type':
      return random.pick(P.APT_TYPES);
    case 'apt-number':
      return String(random.int(1, 420));
    case 'city':
      return person.place.city.toUpperCase();
    case 'state':
      return person.place.state;
    case 'zip':
      return person.place.zip;
    case 'zip4':
      return random.digits(4);
    case 'digits':
      return random.digits(3);
    case 'code':
      return random.pick(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I', '1', '2', '3']);
    case 'yn-flag':
      return random.chance(0.7) ? 'Y' : 'N';
    case 'date-ymd':
      return ymd(random);
    case 'date-mdy':
      return mdy(random);
    case 'identifier':
      return Array.from({ length: 12 }, () => '0123456789abcdef'[random.int(0, 15)]).join('');
    case 'email':
      return person.email;
    case 'phone-formatted': {
      const digits = person.phone ?? `${random.int(201, 989)}${random.digits(7)}`;
      return `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
    }
    case 'phone-type':
      return random.pick(P.PHONE_TYPES);
    case 'carrier':
      return random.pick(P.CARRIERS);
    case 'score':
      // Scores are numeric text, empty when not computed.
      return random.chance(0.1) ? '' : String(random.int(0, 100));
    case 'decimal':
      return (random.int(0, 100) / 10).toFixed(1);
    case 'percent':
      return String(random.int(0, 100));
    case 'pass-fail':
      return random.chance(0.75) ? 'PASS' : 'FAIL';
    case 'result-code':
      return random.pick(P.EMAIL_RESULTS);
    case 'tcpa-code':
      return random.pick(P.TCPA_CODES);
    case 'line-type':
      return random.pick(P.LINE_TYPES);
    case 'year':
      return String(random.int(1950, 2026));
    case 'mileage':
      return String(random.int(1, 250) * 1000);
    case 'income-band':
      return random.pick(['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I']);
    case 'confidence':
      return random.chance(0.1) ? '' : String(random.int(1, 7));
    case 'age':
      return String(person.age);
    case 'birth-date':
      return `${REFERENCE_YEAR - person.age}${ymd(random).slice(4)}`;
    case 'count':
      return String(random.int(0, 40));
    case 'vehicle-make':
    case 'vehicle-model':
      return random.pick(P.VEHICLES)[looks === 'vehicle-make' ? 0 : 1];
  }
}

function ymd(random: Random): string {
  const year = random.int(1995, 2026);
  return `${year}${String(random.int(1, 12)).padStart(2, '0')}${String(random.int(1, 28)).padStart(2, '0')}`;
}

function mdy(random: Random): string {
  return `${random.int(1, 12)}/${random.int(1, 28)}/${random.int(2005, 2026)}`;
}
