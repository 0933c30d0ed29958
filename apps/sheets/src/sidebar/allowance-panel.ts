// The allowance in this spreadsheet (server: allowance/runner.ts): what this user's key spent today
// and this month against its limits, always in view, and the form that changes them (folded).
import type { AllowanceInfo } from '../server/allowance/runner.js';
import { $, errorText, number, plural, showMessage } from './dom.js';
import { call } from './server.js';

export function renderAllowance(info: AllowanceInfo): void {
  const limits = `${number(info.limits.day)} a day, ${number(info.limits.month)} a month`;
  $('allowance-text').textContent =
    info.spentToday === null || info.spentThisMonth === null
      ? `Allowance: ${limits}. Set your key to see what it spent here.`
      : `Spent today: ${number(info.spentToday)} · this month: ${number(info.spentThisMonth)} · ` +
        `allowance: ${limits} (${number(info.left)} left ${info.by === 'day' ? 'today' : 'this month'}).`;
  // Folded, the panel still says where the key stands.
  $('allowance-summary').textContent =
    info.spentToday === null
      ? `${number(info.limits.day)} a day`
      : `${number(info.spentToday)} of ${number(info.limits.day)} today`;
  $<HTMLInputElement>('allowance-day').value = String(info.limits.day);
  $<HTMLInputElement>('allowance-month').value = String(info.limits.month);
}

export function refreshAllowance(): void {
  call('getAllowance')
    .then(renderAllowance)
    .catch(() => undefined);
}

async function save(event: Event): Promise<void> {
  event.preventDefault();
  try {
    const info = await call('saveAllowance', {
      day: $<HTMLInputElement>('allowance-day').value,
      month: $<HTMLInputElement>('allowance-month').value,
    });
    renderAllowance(info);
    showMessage(
      'Allowance saved.' +
        (info.reentered > 0
          ? ` ${plural(info.reentered, 'formula')} stopped at the allowance will go on now.`
          : ''),
      true,
    );
  } catch (error) {
    showMessage(errorText(error));
  }
}

export function wireAllowancePanel(): void {
  $('allowance-form').addEventListener('submit', (e) => void save(e));
}
