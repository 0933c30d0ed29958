// The key and settings panel. The key goes to the server once; only "set / ending in abcd" and the
// free check's verdict per base come back. Saving a key runs the check at once (no transaction).
import type { KeyCheckResult } from '../server/key/check.js';
import type { PublicSettings } from '../server/key/settings.js';
import { $, errorText, showMessage } from './dom.js';
import { call } from './server.js';

export function renderSettings(settings: PublicSettings): void {
  $('key-status').textContent = settings.keySet
    ? settings.keyHint
      ? `A key is set (ending in ${settings.keyHint}).`
      : 'A key is set.'
    : 'No key is set yet.';
  // The folded panel's summary says the same in a few words.
  $('key-summary').textContent = settings.keySet
    ? settings.keyHint
      ? `set, ending in ${settings.keyHint}`
      : 'set'
    : 'not set yet';
  $<HTMLInputElement>('base-url').value = settings.baseUrl;
  $<HTMLInputElement>('base-url-v3').value = settings.baseUrlV3;
  $<HTMLInputElement>('base-url').placeholder = settings.defaults.baseUrl;
  $<HTMLInputElement>('base-url-v3').placeholder = settings.defaults.baseUrlV3;
}

const VERDICT_WORDS: Record<KeyCheckResult['verdict'], string> = {
  accepted: 'key accepted',
  refused: 'key refused',
  unexpected: 'unexpected answer',
  unreachable: 'not reachable',
};

/** One line per base: "https://api.tdg1.io: key accepted. <detail>". */
export function renderKeyCheck(results: readonly KeyCheckResult[]): void {
  const list = $('key-check');
  list.textContent = '';
  for (const result of results) {
    const item = document.createElement('li');
    item.dataset.verdict = result.verdict;
    item.textContent = `${result.base}: ${VERDICT_WORDS[result.verdict]}. ${result.detail}`;
    list.append(item);
  }
}

async function saveKey(event: Event): Promise<void> {
  event.preventDefault();
  const input = $<HTMLInputElement>('api-key');
  const apiKey = input.value;
  input.value = '';
  if (apiKey.trim() === '') {
    showMessage('Type or paste the key first.');
    return;
  }
  try {
    renderSettings(await call('saveSettings', { apiKey }));
    showMessage('Key saved. Checking it with the service (free)…', true);
  } catch (error) {
    showMessage(errorText(error));
    return;
  }
  try {
    const results = await call('checkKey');
    renderKeyCheck(results);
    const refused = results.some((r) => r.verdict === 'refused');
    const unclear = results.some((r) => r.verdict !== 'accepted');
    showMessage(
      refused
        ? 'Key saved, but the service refused it: see the check above.'
        : unclear
          ? 'Key saved; the check could not confirm it everywhere: see above.'
          : 'Key saved and accepted by the service. Nothing was spent.',
      !unclear,
    );
  } catch (error) {
    showMessage(`Key saved; the check failed: ${errorText(error)}`);
  }
}

async function saveSettingsForm(event: Event, reset = false): Promise<void> {
  event.preventDefault();
  const change = reset
    ? { baseUrl: '', baseUrlV3: '' }
    : { baseUrl: $<HTMLInputElement>('base-url').value, baseUrlV3: $<HTMLInputElement>('base-url-v3').value };
  try {
    renderSettings(await call('saveSettings', change));
    showMessage('Settings saved.', true);
  } catch (error) {
    showMessage(errorText(error));
  }
}

export function wireKeyPanel(): void {
  $('key-form').addEventListener('submit', (e) => void saveKey(e));
  $('remove-key').addEventListener('click', async () => {
    renderSettings(await call('saveSettings', { apiKey: '' }));
    renderKeyCheck([]);
    showMessage('Key removed.', true);
  });
  $('settings-form').addEventListener('submit', (e) => void saveSettingsForm(e));
  $('reset-settings').addEventListener('click', (e) => void saveSettingsForm(e, true));
}
