// Writes examples/leads.csv, the demo's sample: a few hundred leads with the mess real exports have.
// Run once (`node --import tsx scripts/make-leads.ts`); the file is committed, so the demo's input
// never changes under it. Seeded, so running it again gives the same file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32, RESERVED } from '@enrich/sandbox';
import { stringify } from 'csv-stringify/sync';

const random = mulberry32(20_240_601);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const digits = (n: number) => Array.from({ length: n }, () => Math.floor(random() * 10)).join('');

const FIRST = [
  'Jane',
  'John',
  'Maria',
  'Wei',
  'Aisha',
  'Carlos',
  'Olivia',
  'Liam',
  'Noah',
  'Emma',
  'Priya',
  'Mateo',
  'Chloe',
  'Ethan',
  'Sofia',
  'Lucas',
  'Ava',
  'Mason',
  'Zoe',
  'Omar',
];
const LAST = [
  'Doe',
  'Smith',
  'Garcia',
  'Chen',
  'Khan',
  'Lopez',
  'Brown',
  "O'Neil",
  'Nguyen',
  'Patel',
  'Miller',
  'Davis',
  'Wilson',
  'Martinez',
  'Anderson',
  'Taylor',
  'Thomas',
  'Moore',
  'Jackson',
  'White',
];
const STREETS = [
  'Main St',
  'Oak Ave',
  'Maple Dr',
  'Cedar Ln',
  'Elm St',
  'Pine Rd',
  'Washington Blvd',
  'Lake Shore Dr',
];
// Places whose ZIP codes start with 0, so that a spreadsheet export drops the zero.
const PLACES = [
  ['Boston', 'MA', '02134'],
  ['Providence', 'RI', '02903'],
  ['Newark', 'NJ', '07102'],
  ['Hartford', 'CT', '06103'],
  ['Portland', 'ME', '04101'],
  ['Austin', 'TX', '78701'],
  ['Denver', 'CO', '80202'],
  ['Chicago', 'IL', '60601'],
  ['Seattle', 'WA', '98101'],
  ['Atlanta', 'GA', '30303'],
] as const;
const SOURCES = ['web form', 'trade show', 'referral', 'import', 'webinar'];
const NOTES = [
  '',
  '',
  '',
  'called, no answer',
  'asked for a quote, "urgent"',
  'prefers e-mail',
  'met at booth 12, wants demo',
  '-- duplicate? check CRM',
];

// How phones arrive in exports: every one normalises to the same 10 digits.
const formatPhone = (p: string) =>
  pick([
    () => p,
    () => `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}`,
    () => `${p.slice(0, 3)}-${p.slice(3, 6)}-${p.slice(6)}`,
    () => `${p.slice(0, 3)}.${p.slice(3, 6)}.${p.slice(6)}`,
    () => `+1 ${p.slice(0, 3)} ${p.slice(3, 6)} ${p.slice(6)}`,
    () => `1-${p.slice(0, 3)}-${p.slice(3, 6)}-${p.slice(6)}`,
  ])();
const formatZip = (zip: string) =>
  pick([
    () => zip,
    () => zip.replace(/^0+/, ''),
    () => `${zip}-${digits(4)}`,
    () => zip.replace(/^0+/, ''),
  ])();
const formatEmail = (first: string, last: string) => {
  const local = `${first}.${last.replace(/'/g, '')}`;
  const domain = pick(['example.com', 'example.org', 'example.net']);
  return pick([() => `${local.toLowerCase()}@${domain}`, () => `${local}@${domain.toUpperCase()}`])();
};

interface Lead {
  first: string;
  last: string;
  phone: string;
  email: string;
  address: string;
  city: string;
  state: string;
  zip: string;
  source: string;
  notes: string;
}

const people: Lead[] = [];
for (let i = 0; i < 240; i++) {
  const [city, state, zip] = pick(PLACES);
  const first = pick(FIRST);
  const last = pick(LAST);
  people.push({
    first,
    last,
    // 555 numbers outside the sandbox's reserved 555000xxxx.
    phone: `555${1 + Math.floor(random() * 8)}${digits(6)}`,
    email: formatEmail(first, last),
    address: `${1 + Math.floor(random() * 9000)} ${pick(STREETS)}`,
    city,
    state,
    zip,
    source: pick(SOURCES),
    notes: pick(NOTES),
  });
}

const rows: string[][] = [];
const emit = (lead: Lead) =>
  rows.push([
    lead.first,
    lead.last,
    lead.phone === '' ? '' : formatPhone(lead.phone),
    lead.email,
    lead.address,
    lead.city,
    lead.state,
    lead.zip === '' ? '' : formatZip(lead.zip),
    lead.source,
    lead.notes,
  ]);

for (const lead of people) {
  const r = random();
  if (r < 0.06) emit({ ...lead, phone: '' });
  else if (r < 0.1) emit({ ...lead, email: '' });
  else if (r < 0.12) emit({ ...lead, zip: '' });
  else emit(lead);
  // Duplicates: the same lead again, formatted differently, from another source.
  if (random() < 0.15) emit({ ...lead, source: pick(SOURCES) });
}
// Rows the service must never see: they fail local validation and cost nothing.
const broken: Partial<Lead>[] = [
  { phone: '555123456', email: 'no-at-sign.example.com' },
  { phone: 'n/a', email: 'someone@' },
  { phone: '555-0123 ext 12', email: '' },
  { phone: '12345', email: 'ok.person@example.com' },
  { phone: '', email: '' },
];
for (const b of broken) {
  rows.splice(Math.floor(random() * rows.length), 0, [
    pick(FIRST),
    pick(LAST),
    b.phone ?? '',
    b.email ?? '',
    '',
    '',
    '',
    '',
    'import',
    'bad export row',
  ]);
}
// A blank line in the middle of the export, and rows answered specially by the sandbox.
rows.splice(Math.floor(random() * rows.length), 0, ['', '', '', '', '', '', '', '', '', '']);
const reserved = (outcome: string) => RESERVED.find((r) => r.outcome === outcome);
for (const outcome of ['no-match', 'formula', 'too-many']) {
  const r = reserved(outcome);
  if (!r) throw new Error(`the sandbox has no reserved ${outcome} input`);
  rows.splice(Math.floor(random() * rows.length), 0, [
    'Test',
    r.lastName,
    formatPhone(r.phone),
    r.email,
    '1 Test Way',
    'Boston',
    'MA',
    '2134',
    'sandbox',
    `reserved: ${r.description}`,
  ]);
}

const header = [
  'First Name',
  'Last Name',
  'Phone Number',
  'Email',
  'Address',
  'City',
  'State',
  'Zip',
  'Lead Source',
  'Notes',
];
const target = join(import.meta.dirname, '..', '..', '..', 'examples', 'leads.csv');
writeFileSync(target, stringify([header, ...rows]));
process.stdout.write(`wrote ${rows.length} rows to ${target}\n`);
