// "Keep this range enriched" (server: automation/): a switch that turns the hourly trigger on for
// the run described above it (operation, input columns, outputs, results column) or off, what it
// keeps enriched, and its runs: when, rows, spent, why it stopped.
import type { AutomationState } from '../server/automation/switch.js';
import type { RunRequest } from '../server/run/types.js';
import { $, errorText, showMessage } from './dom.js';
import { call } from './server.js';

export function renderAutomation(state: AutomationState): void {
  const box = $<HTMLInputElement>('auto-switch');
  box.checked = state.on;
  box.setAttribute('aria-checked', String(state.on));
  $('auto-summary').textContent = state.on ? 'on, every hour' : 'off';
  $('auto-text').textContent = state.on
    ? `On: ${state.what}.` +
      (state.lastRun ? ` Last looked: ${state.lastRun}.` : ' First run within the hour.')
    : 'Off.';
  if (state.problem) $('auto-text').textContent += ` ${state.problem}`;
  const list = $('auto-history');
  list.textContent = '';
  for (const line of state.history) {
    const item = document.createElement('li');
    item.textContent = line;
    list.append(item);
  }
  $('auto-history-details').hidden = state.history.length === 0;
}

async function toggle(request: () => RunRequest): Promise<void> {
  const box = $<HTMLInputElement>('auto-switch');
  const wanted = box.checked;
  box.disabled = true;
  try {
    const state = wanted ? await call('turnOnAutomation', request()) : await call('turnOffAutomation');
    renderAutomation(state);
    showMessage(wanted ? 'Kept enriched every hour from now on.' : 'Turned off.', true);
  } catch (error) {
    box.checked = !wanted;
    box.setAttribute('aria-checked', String(!wanted));
    showMessage(errorText(error));
  } finally {
    box.disabled = false;
  }
}

export function wireAutomationPanel(request: () => RunRequest): void {
  $('auto-switch').addEventListener('change', () => void toggle(request));
}
