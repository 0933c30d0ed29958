// Word pools for plausible synthetic records. Places keep city, state and ZIP consistent, and
// several New England ZIPs start with 0, so clients' leading-zero handling is exercised.

export const FIRST_NAMES = [
  'James',
  'Mary',
  'Robert',
  'Patricia',
  'John',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'William',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Carlos',
  'Maria',
  'Wei',
  'Mei',
  'Ahmed',
  'Fatima',
  'Dmitri',
  'Olga',
  'Kwame',
  'Ama',
  'Hiroshi',
  'Yuki',
];
export const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Nguyen',
  'Chen',
  "O'Brien",
  'Kowalski',
  'Okafor',
];
export const SUFFIXES = ['JR', 'SR', 'II', 'III'];
export const STREETS = [
  'Main',
  'Oak',
  'Maple',
  'Cedar',
  'Elm',
  'Washington',
  'Lake',
  'Hill',
  'Park',
  'Pine',
  'Walnut',
  'Sunset',
  'Highland',
  'Jefferson',
  'Lincoln',
  'Church',
  'Spring',
  'Ridge',
  'Mill',
  'River',
];
export const STREET_TYPES = ['ST', 'AVE', 'RD', 'DR', 'LN', 'CT', 'BLVD', 'WAY', 'PL', 'CIR'];
export const DIRECTIONS = ['N', 'S', 'E', 'W', 'NE', 'SW'];
export const APT_TYPES = ['APT', 'UNIT', 'STE'];

export interface Place {
  readonly city: string;
  readonly state: string;
  readonly zip: string;
}
export const PLACES: readonly Place[] = [
  { city: 'Boston', state: 'MA', zip: '02134' },
  { city: 'Cambridge', state: 'MA', zip: '02139' },
  { city: 'Providence', state: 'RI', zip: '02903' },
  { city: 'Hartford', state: 'CT', zip: '06103' },
  { city: 'Newark', state: 'NJ', zip: '07102' },
  { city: 'Burlington', state: 'VT', zip: '05401' },
  { city: 'Portland', state: 'ME', zip: '04101' },
  { city: 'New York', state: 'NY', zip: '10001' },
  { city: 'Philadelphia', state: 'PA', zip: '19103' },
  { city: 'Atlanta', state: 'GA', zip: '30303' },
  { city: 'Miami', state: 'FL', zip: '33130' },
  { city: 'Chicago', state: 'IL', zip: '60614' },
  { city: 'Dallas', state: 'TX', zip: '75201' },
  { city: 'Denver', state: 'CO', zip: '80202' },
  { city: 'Phoenix', state: 'AZ', zip: '85004' },
  { city: 'Seattle', state: 'WA', zip: '98101' },
  { city: 'San Francisco', state: 'CA', zip: '94103' },
  { city: 'Los Angeles', state: 'CA', zip: '90012' },
];
export const VEHICLES: ReadonlyArray<readonly [string, string]> = [
  ['TOYOTA', 'CAMRY'],
  ['HONDA', 'CIVIC'],
  ['FORD', 'F-150'],
  ['CHEVROLET', 'SILVERADO'],
  ['NISSAN', 'ALTIMA'],
  ['SUBARU', 'OUTBACK'],
  ['TESLA', 'MODEL 3'],
  ['JEEP', 'WRANGLER'],
  ['HYUNDAI', 'ELANTRA'],
  ['BMW', '330I'],
];
export const CARRIERS = ['VERIZON WIRELESS', 'AT&T MOBILITY', 'T-MOBILE USA', 'COMCAST', 'SPECTRUM', 'LUMEN'];
export const PHONE_TYPES = ['Wireless', 'Landline', 'VoIP'];
export const MAIL_DOMAINS = ['example.com', 'example.net', 'example.org'];
/** Likely values, from a related provider's documentation (docs/platforms.md). */
export const EMAIL_RESULTS = ['VERIFIED', 'VERIFIED', 'VERIFIED', 'UNDELIVERABLE', 'CATCHALL', 'UNKNOWN'];
export const TCPA_CODES = ['Y', 'YP', 'YX', 'N', 'U', 'V', 'L'];
export const LINE_TYPES = ['W', 'L', 'V', 'O'];
/** What the reserved "formula" inputs put in text fields: each would run as a formula if pasted raw. */
export const FORMULA_VALUES = ['=HYPERLINK("http://attacker.example","click")', '+1-2', '-3+4', '@SUM(1,2)'];
