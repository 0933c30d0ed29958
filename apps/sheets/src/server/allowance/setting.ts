// The allowance: how many transactions a key may spend in one spreadsheet per UTC day and per UTC
// month (formulas, sidebar runs and the automation together). It belongs to whoever's key pays, so
// it lives in that user's own properties, one value per spreadsheet (`enrich.allowance.<id>`),
// beside the key: formulas spend the spreadsheet owner's key and, being custom functions, read the
// owner's properties, so they stop at the owner's allowance; no other editor can change it (their
// setting governs only what their own key spends). A spreadsheet starts at a modest default.

const PREFIX = 'enrich.allowance.';
export const DEFAULT_LIMITS: Limits = { day: 500, month: 10_000 };
const MAX = 1_000_000;

export interface Limits {
  /** Transactions a UTC day. */
  readonly day: number;
  /** Transactions a UTC month. */
  readonly month: number;
}

export function allowanceProperty(spreadsheetId: string): string {
  return PREFIX + spreadsheetId;
}

/** The stored limits among a user's properties (`all`), or the default; a damaged value is the default. */
export function limitsOf(all: Readonly<Record<string, string>>, spreadsheetId: string): Limits {
  try {
    const value = JSON.parse(all[allowanceProperty(spreadsheetId)] ?? 'null') as Partial<Limits> | null;
    if (value && isCount(value.day) && isCount(value.month)) return { day: value.day, month: value.month };
  } catch {
    // damaged: the default
  }
  return DEFAULT_LIMITS;
}

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= MAX;
}

/**
 * A change of the allowance from the sidebar (`{day, month}`, either may be left out), checked:
 * whole numbers from 0 to 1,000,000. Returns the limits to store.
 */
export function checkLimits(change: unknown, current: Limits): Limits {
  const given = (change ?? {}) as { day?: unknown; month?: unknown };
  const field = (name: 'day' | 'month', label: string): number => {
    const raw = given[name];
    if (raw === undefined || raw === null || raw === '') return current[name];
    const n = Number(raw);
    if (!isCount(n)) {
      throw new Error(
        `${label} must be a whole number of transactions from 0 to 1,000,000; got ${String(raw)}`,
      );
    }
    return n;
  };
  return { day: field('day', 'Allowance per day'), month: field('month', 'Allowance per month') };
}
