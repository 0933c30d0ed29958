// Formula answers: how many are still only in the 6-hour cache ("Keep them in this spreadsheet"
// moves them into the spreadsheet's hidden sheet of answers, free), how long this user's key reuses
// kept answers (formulas follow the spreadsheet owner's setting: they spend the owner's key), and
// Freeze results in the whole spreadsheet ("Turn every Enrich formula into values").
import type { AnswersInfo } from '../server/sidebar-api.js';
import { $, errorText, number, plural, showMessage } from './dom.js';
import { call } from './server.js';

export function renderAnswers(info: AnswersInfo): void {
  $('answers-text').textContent =
    info.unkept === 0
      ? 'Every formula answer is kept in this spreadsheet.'
      : `${number(info.unkept)} formula answer${info.unkept === 1 ? ' is' : 's are'} not kept yet: ` +
        'they are only cached for a few hours, and a recalculation after that would pay for them again.';
  $('answers-summary').textContent = info.unkept === 0 ? 'all kept' : `${number(info.unkept)} not kept yet`;
  $<HTMLButtonElement>('keep-answers').disabled = info.unkept === 0;
  $<HTMLInputElement>('answer-days').value = String(info.days);
}

async function keepAnswers(): Promise<void> {
  try {
    const info = await call('keepAnswers');
    renderAnswers(info);
    showMessage(`Kept ${plural(info.kept, 'answer')}; no transaction spent.`, true);
  } catch (error) {
    showMessage(errorText(error));
  }
}

let freezeArmed = false;
const FREEZE_LABEL = 'Turn every Enrich formula into values';

/** Two clicks: freezing replaces every add-on formula in the spreadsheet with its values. */
async function freezeAll(): Promise<void> {
  const button = $<HTMLButtonElement>('freeze-all');
  if (!freezeArmed) {
    freezeArmed = true;
    button.textContent = 'Click again: every formula of this add-on becomes values';
    return;
  }
  freezeArmed = false;
  button.textContent = FREEZE_LABEL;
  try {
    const report = await call('freezeAllResults');
    showMessage(
      `Froze ${plural(report.formulas, 'formula')} (${number(report.cells)} cells)` +
        (report.skipped > 0 ? `; ${number(report.skipped)} left as formulas (they show an error)` : ''),
      true,
    );
  } catch (error) {
    showMessage(errorText(error));
  }
}

async function saveAnswerDays(event: Event): Promise<void> {
  event.preventDefault();
  try {
    await call('saveSettings', { answerDays: $<HTMLInputElement>('answer-days').value });
    renderAnswers(await call('getAnswersInfo'));
    showMessage('Saved.', true);
  } catch (error) {
    showMessage(errorText(error));
  }
}

export function wireAnswersPanel(): void {
  $('keep-answers').addEventListener('click', () => void keepAnswers());
  $('freeze-all').addEventListener('click', () => void freezeAll());
  $('answer-days-form').addEventListener('submit', (e) => void saveAnswerDays(e));
}

/** Formulas may buy answers while the sidebar is open: look again every minute and on focus. */
export function refreshAnswersNow(): void {
  call('getAnswersInfo')
    .then(renderAnswers)
    .catch(() => undefined);
}
