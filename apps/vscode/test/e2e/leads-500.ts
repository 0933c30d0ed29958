// A 500-row lead list with the mess real exports have, seeded so every run writes the same file:
// 300 people (one of them the sandbox's reserved no-match phone, still a paid answer), 120 rows
// repeating someone's phone in another format, 40 blank rows, 40 rows with a phone that cannot be
// valid. Notes hold commas, quotes and a leading "=" so the CSV quoting and the formula guard are
// exercised. The expected number of distinct valid requests is worked out independently of the
// engine: core's validate and requestKey over the rows as written.
import { getOperation, mapColumns, requestKey, rowInput, validate } from '@enrich/core';
import { RESERVED } from '@enrich/sandbox';

const HEADER = ['First Name', 'Last Name', 'Phone Number', 'Notes'];
const FIRST = ['Jane', 'John', 'Maria', 'Wei', 'Aisha', 'Carlos', 'Olivia', 'Liam', 'Priya', 'Omar'];
const LAST = ['Doe', 'Martinez', 'Lopez', "O'Neil", 'Smith', 'Nguyen', 'Khan', 'Garcia'];
const NOTES = ['', 'met at booth 12, wants demo', 'said "call after 5"', '=HYPERLINK("x")', 'referral'];

let seed = 12_500;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;

const formats = [
  (p: string) => p,
  (p: string) => `(${p.slice(0, 3)}) ${p.slice(3, 6)}-${p.slice(6)}`,
  (p: string) => `${p.slice(0, 3)}-${p.slice(3, 6)}-${p.slice(6)}`,
  (p: string) => `+1 ${p.slice(0, 3)} ${p.slice(3, 6)} ${p.slice(6)}`,
];

export function makeLeads(): { csv: string; rows: number; distinctValid: number } {
  const people: string[][] = [];
  for (let i = 0; i < 300; i++) {
    // 555 numbers outside the sandbox's reserved 555000xxxx, all different.
    const phone = `555${1 + (i % 8)}${String(100_000 + i * 7).padStart(6, '0')}`;
    people.push([pick(FIRST), pick(LAST), phone, pick(NOTES)]);
  }
  const noMatch = RESERVED.find((r) => r.outcome === 'no-match');
  if (!noMatch) throw new Error('the sandbox has no reserved no-match phone');
  people[17] = ['Test', noMatch.lastName, noMatch.phone, 'reserved: 204'];
  const rows: string[][] = people.map(([f, l, p, n]) => [f ?? '', l ?? '', pick(formats)(p ?? ''), n ?? '']);
  for (let i = 0; i < 120; i++) {
    const [f, l, p, n] = pick(people);
    rows.push([f ?? '', l ?? '', pick(formats)(p ?? ''), n ?? '']);
  }
  for (let i = 0; i < 40; i++) rows.push(['', '', '', '']);
  for (let i = 0; i < 40; i++)
    rows.push([pick(FIRST), pick(LAST), pick(['555-0102', '55501020301', 'n/a', '555 010 203x']), '']);
  // Shuffled, so duplicates, blanks and invalid rows are spread through the file.
  for (let i = rows.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [rows[i], rows[j]] = [rows[j] as string[], rows[i] as string[]];
  }
  const op = getOperation('phone-lookup');
  const mapping = mapColumns(op, HEADER);
  const keys = new Set<string>();
  for (const row of rows) {
    const checked = validate(op, rowInput(mapping, row));
    if (checked.ok) keys.add(requestKey(op, checked.input));
  }
  const csv = [HEADER, ...rows].map((r) => r.map(quote).join(',')).join('\r\n');
  return { csv: `${csv}\r\n`, rows: rows.length, distinctValid: keys.size };
}

function quote(cell: string): string {
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}
