// The allowance of whoever runs this execution (sidebar runs and the automation spend the runner's
// own key), and what the sidebar shows of it: spent today and this month against the limits.
import { activeSpreadsheetId } from '../active-spreadsheet.js';
import { documentCache } from '../answers/document-cache.js';
import { settingsFrom } from '../key/settings.js';
import { type AllowanceGate, allowanceGate, leftOf, payerOf, spentBy } from './ledger.js';
import { reenterHeldFormulas } from './reenter.js';
import { allowanceProperty, checkLimits, type Limits, limitsOf } from './setting.js';

export interface AllowanceInfo {
  readonly limits: Limits;
  /** What this user's key spent in this spreadsheet (null without a key: nothing to count). */
  readonly spentToday: number | null;
  readonly spentThisMonth: number | null;
  /** Transactions the key may still spend here now, and which limit is the nearer. */
  readonly left: number;
  readonly by: 'day' | 'month';
}

/** The runner's allowance gate: claims persisted to the document property too (this execution may write). */
export function runnerGate(apiKey: string): AllowanceGate {
  return allowanceGate(documentCache(), apiKey, PropertiesService.getUserProperties().getProperties(), true);
}

export function allowanceInfo(): AllowanceInfo {
  const id = activeSpreadsheetId();
  const all = PropertiesService.getUserProperties().getProperties();
  const limits = limitsOf(all, id);
  const key = settingsFrom(all).apiKey;
  if (!key) return { limits, spentToday: null, spentThisMonth: null, left: limits.day, by: 'day' };
  const spent = spentBy(documentCache(), payerOf(id, key));
  return { limits, spentToday: spent.today, spentThisMonth: spent.thisMonth, ...leftOf(spent, limits) };
}

/**
 * Saves this user's allowance in this spreadsheet (`{day?, month?}`). A raised allowance also enters
 * again the formulas that stopped at it (reenter.ts), so that they go on now. Returns what the
 * sidebar shows, and how many formulas were entered again.
 */
export function saveAllowance(change: unknown): AllowanceInfo & { readonly reentered: number } {
  const id = activeSpreadsheetId();
  const props = PropertiesService.getUserProperties();
  const before = limitsOf(props.getProperties(), id);
  const limits = checkLimits(change, before);
  props.setProperty(allowanceProperty(id), JSON.stringify(limits));
  const raised = limits.day > before.day || limits.month > before.month;
  return { ...allowanceInfo(), reentered: raised ? reenterHeldFormulas() : 0 };
}
