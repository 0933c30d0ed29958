// The sidebar's browser code. It holds no secret: the key goes to the server once and only
// "set / ending in abcd" comes back (key-panel.ts). The run is driven from here in chunks (one
// google.script.run call each), so Stop takes effect between chunks and closing the sidebar loses
// nothing: the server's checkpoint says where to resume.
import type { RunPlan, RunProgress, RunRequest } from '../server/run/types.js';
import type { OperationInfo, SelectionInfo } from '../server/sidebar-api.js';
import { refreshAllowance, renderAllowance, wireAllowancePanel } from './allowance-panel.js';
import { refreshAnswersNow, renderAnswers, wireAnswersPanel } from './answers-panel.js';
import { renderAutomation, wireAutomationPanel } from './automation-panel.js';
import { renderBreakdown } from './breakdown-panel.js';
import { $, errorText, number, plural, showMessage } from './dom.js';
import { wireForgetPanel } from './forget-panel.js';
import { renderSettings, wireKeyPanel } from './key-panel.js';
import { renderUndo, wireProvenancePanel } from './provenance-panel.js';
import { call } from './server.js';
import { renderSpend } from './spend-panel.js';

let operations: readonly OperationInfo[] = [];
let selection: SelectionInfo | null = null;
let plan: RunPlan | null = null;
let running = false;
let stopRequested = false;

function currentOp(): OperationInfo | undefined {
  return operations.find((op) => op.id === $<HTMLSelectElement>('operation').value);
}

function renderSelection(): void {
  $('selection-text').textContent = selection
    ? `Selection: ${selection.sheetName}!${selection.a1} (${number(selection.numRows - 1)} rows below the header).`
    : 'Select the rows to work on, with their header row.';
  if (selection) $<HTMLInputElement>('target').value = selection.defaultTarget.letter;
  renderMapping();
}

function renderMapping(): void {
  const op = currentOp();
  const box = $('mapping-fields');
  box.textContent = '';
  const outputs = $('output-fields');
  outputs.textContent = '';
  invalidatePlan();
  if (!op) return;
  const suggested = selection?.suggestions[op.id]?.fields ?? {};
  for (const input of op.inputs) {
    const row = document.createElement('div');
    row.className = 'mapping-row';
    const id = `map-${input.name}`;
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = `${input.label} (${input.name})`;
    const select = document.createElement('select');
    select.id = id;
    select.dataset.field = input.name;
    select.add(new Option('(none)', ''));
    (selection?.headers ?? []).forEach((header, offset) => {
      select.add(new Option(header || `(column ${offset + 1})`, String(offset)));
    });
    const chosen = suggested[input.name];
    select.value = chosen === undefined ? '' : String(chosen);
    select.addEventListener('change', invalidatePlan);
    row.append(label, select);
    box.append(row);
  }
  for (const column of op.columns) {
    const wrap = document.createElement('span');
    wrap.className = 'output-option';
    const box2 = document.createElement('input');
    box2.type = 'checkbox';
    box2.id = `out-${column}`;
    box2.value = column;
    box2.checked = op.defaultColumns.includes(column);
    box2.addEventListener('change', () => {
      invalidatePlan();
      renderOutputsSummary();
    });
    const label = document.createElement('label');
    label.htmlFor = box2.id;
    label.textContent = column;
    wrap.append(box2, label);
    outputs.append(wrap);
  }
  renderOutputsSummary();
}

/** The folded list of output columns says what is chosen: "FName, LName, House… (10 of 17)". */
function renderOutputsSummary(): void {
  const boxes = Array.from($('output-fields').querySelectorAll<HTMLInputElement>('input'));
  const chosen = boxes.filter((b) => b.checked).map((b) => b.value);
  const names = chosen.length > 3 ? `${chosen.slice(0, 3).join(', ')}…` : chosen.join(', ') || 'none';
  $('outputs-summary').textContent = `${names} (${chosen.length} of ${boxes.length})`;
}

function invalidatePlan(): void {
  plan = null;
  $('plan').textContent = '';
  $('confirm').hidden = true;
  $<HTMLInputElement>('confirm-overwrite').checked = false;
  $('ask-again').hidden = true;
  $<HTMLInputElement>('ask-again-unreadable').checked = false;
  $<HTMLButtonElement>('start').disabled = true;
}

function letterToColumn(letters: string): number | null {
  const text = letters.trim().toUpperCase();
  if (!/^[A-Z]{1,3}$/.test(text)) return null;
  let n = 0;
  for (const ch of text) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n;
}

function runRequest(): RunRequest {
  const op = currentOp();
  if (!op || !selection) throw new Error('Select the rows to work on, with their header row.');
  const mapping: Record<string, number> = {};
  for (const select of Array.from($('mapping-fields').querySelectorAll('select'))) {
    if (select.value !== '') mapping[select.dataset.field as string] = Number(select.value);
  }
  const columns = Array.from($('output-fields').querySelectorAll<HTMLInputElement>('input:checked')).map(
    (box) => box.value,
  );
  if (columns.length === 0) throw new Error('Choose at least one output column.');
  const target = letterToColumn($<HTMLInputElement>('target').value);
  if (target === null) throw new Error('Give the target column as letters, such as E.');
  return {
    selection: {
      sheetId: selection.sheetId,
      row: selection.row,
      column: selection.column,
      numRows: selection.numRows,
      numColumns: selection.numColumns,
    },
    operation: op.id,
    mapping,
    columns,
    targetColumn: target,
  };
}

/**
 * Check: what the run will do and spend at most. `keepAskAgain` is set when the user ticked or
 * unticked "ask again", which changes that figure: the plan is asked for again with the box as it is.
 */
async function check(keepAskAgain = false): Promise<void> {
  showMessage('');
  const askAgain = keepAskAgain && $<HTMLInputElement>('ask-again-unreadable').checked;
  invalidatePlan();
  if (keepAskAgain) {
    // The box just ticked or unticked stays as the user left it while the plan is asked for again:
    // cleared and hidden meanwhile, it vanished under the pointer and read as unticked until the
    // answer came back.
    $('ask-again').hidden = false;
    $<HTMLInputElement>('ask-again-unreadable').checked = askAgain;
  }
  try {
    const result = await call('planRun', { ...runRequest(), askAgainUnreadable: askAgain });
    plan = result;
    $('plan').textContent =
      `${number(result.rows)} rows: ${number(result.distinct)} distinct requests, ${number(result.invalid)} invalid, ` +
      `${number(result.empty)} empty. ${number(result.cached)} answers are cached already. ` +
      `This run will spend at most ${number(result.transactions)} transactions. Results go to ${result.targetA1}.` +
      allowanceNote(result);
    renderAskAgain(result.unreadable, askAgain);
    if (result.nonEmpty > 0) {
      $('confirm-text').textContent =
        `Overwrite the ${number(result.nonEmpty)} non-empty cells in ${result.targetA1}`;
      $('confirm').hidden = false;
    }
    $<HTMLButtonElement>('start').disabled = result.nonEmpty > 0;
  } catch (error) {
    showMessage(errorText(error));
  }
}

/** Said in the plan when the run would cross the runner's allowance: where it will stop. */
function allowanceNote(result: RunPlan): string {
  if (result.stopsAtRow === null) return '';
  const { left, by, limits } = result.allowance;
  const limit = by === 'day' ? `${number(limits.day)} a day` : `${number(limits.month)} a month`;
  return (
    ` Your allowance here (${limit}) has ${number(left)} left ${by === 'day' ? 'today' : 'this month'}: ` +
    `the run will stop before row ${number(result.stopsAtRow)}. Raise it under Spend and allowance to go further.`
  );
}

async function start(): Promise<void> {
  if (!plan || running) return;
  showMessage('');
  try {
    const confirmed = $<HTMLInputElement>('confirm-overwrite').checked;
    const askAgain = $<HTMLInputElement>('ask-again-unreadable').checked;
    // What Check showed is the run's ceiling: the server stops the run rather than spend more.
    const progress = await call(
      'startRun',
      { ...runRequest(), askAgainUnreadable: askAgain },
      confirmed,
      plan.transactions,
    );
    await drive(progress);
  } catch (error) {
    showMessage(errorText(error));
  }
}

/**
 * Answers that were paid for but could not be read are never bought again on their own; the user
 * may ask again, and the box says what that costs.
 */
function renderAskAgain(unreadable: number, checked: boolean): void {
  $('ask-again').hidden = unreadable === 0;
  $<HTMLInputElement>('ask-again-unreadable').checked = unreadable > 0 && checked;
  $('ask-again-text').textContent =
    `Ask again for the ${plural(unreadable, 'answer')} paid for but unreadable ` +
    `(up to ${plural(unreadable, 'more transaction')}; they were paid once already)`;
}

function renderProgress(progress: RunProgress): void {
  $('progress-section').hidden = false;
  const bar = $<HTMLProgressElement>('progress-bar');
  bar.max = Math.max(1, progress.total);
  bar.value = progress.counts.done;
  renderSpend(progress.spend);
  const c = progress.counts;
  $('progress-text').textContent =
    `${number(c.done)} of ${number(progress.total)} rows · ${number(c.spent)} transactions spent · ` +
    `${number(c.noMatch)} no match · ${number(c.invalid)} invalid · ${number(c.errors)} errors` +
    (c.unreadable ? ` · ${number(c.unreadable)} paid, unreadable` : '');
  // The pace, in core's words: "48/s, 15 in flight, paced at 49/s (slower: the service answered 429)".
  $('pace-text').textContent = progress.pace
    ? `Pace: ${progress.pace}` +
      (c.throttled ? ` · ${number(c.throttled)} answered 429` : '') +
      (c.retries ? ` · ${number(c.retries)} retries` : '')
    : '';
}

async function drive(first: RunProgress): Promise<void> {
  running = true;
  stopRequested = false;
  $('resume-section').hidden = true;
  $<HTMLButtonElement>('start').disabled = true;
  $<HTMLButtonElement>('check').disabled = true;
  $<HTMLButtonElement>('stop').disabled = false;
  renderBreakdown(null);
  renderProgress(first);
  $('stop').focus();
  let progress = first;
  try {
    while (!progress.finished) {
      if (stopRequested) {
        showMessage('Stopped. Nothing is lost: resume to continue where it stopped.');
        showResume(progress);
        return;
      }
      progress = await call('runChunk', progress.runId);
      renderProgress(progress);
      if (progress.halted !== null) {
        // Stopped at what Check showed: the message says what changed and what to do.
        showMessage(progress.halted);
        showResume(progress);
        return;
      }
    }
    renderBreakdown(progress.breakdown);
    const c = progress.counts;
    showMessage(
      `Done: ${number(progress.total)} rows in ${progress.targetA1}, ${number(c.spent)} transactions spent` +
        (c.throttled ? `, ${number(c.throttled)} requests answered 429` : '') +
        (c.retries ? `, ${number(c.retries)} retries` : '') +
        '.',
      true,
    );
  } catch (error) {
    showMessage(`${errorText(error)} Nothing is lost: resume to continue.`);
    showResume(progress);
  } finally {
    running = false;
    $<HTMLButtonElement>('check').disabled = false;
    $<HTMLButtonElement>('stop').disabled = true;
    // What the run spent of the allowance, and the run it can now undo.
    refreshAllowance();
    call('getUndo')
      .then(renderUndo)
      .catch(() => undefined);
  }
}

function showResume(progress: RunProgress): void {
  $('resume-section').hidden = false;
  // A run stopped at its ceiling would stop again: Check again, or discard it. One stopped at the
  // allowance goes on once there is room again.
  $('resume').hidden = progress.halted !== null && !progress.heldByAllowance;
  $('resume-section').dataset.runId = progress.runId;
  $('resume-text').textContent =
    `${progress.title} on ${progress.sheetName}!${progress.inputA1}: ${number(progress.counts.done)} of ` +
    `${number(progress.total)} rows done, results in ${progress.targetA1}.`;
}

async function resume(): Promise<void> {
  const runId = $('resume-section').dataset.runId;
  if (!runId || running) return;
  showMessage('');
  const state = await call('getSidebarState');
  if (!state.run || state.run.runId !== runId) {
    $('resume-section').hidden = true;
    showMessage('That run is no longer waiting to be resumed.');
    return;
  }
  await drive(state.run);
}

async function discard(): Promise<void> {
  const runId = $('resume-section').dataset.runId;
  if (!runId) return;
  await call('discardRun', runId);
  $('resume-section').hidden = true;
  showMessage('The unfinished run was discarded; the rows already written stay.', true);
}

async function refreshSelection(): Promise<void> {
  try {
    selection = await call('describeSelection');
    renderSelection();
  } catch (error) {
    showMessage(errorText(error));
  }
}

async function init(): Promise<void> {
  wireKeyPanel();
  wireAnswersPanel();
  wireAllowancePanel();
  wireAutomationPanel(runRequest);
  wireProvenancePanel();
  $('operation').addEventListener('change', renderMapping);
  $('target').addEventListener('input', invalidatePlan);
  $('refresh-selection').addEventListener('click', () => void refreshSelection());
  $('check').addEventListener('click', () => void check());
  $('start').addEventListener('click', () => void start());
  $('confirm-overwrite').addEventListener('change', () => {
    $<HTMLButtonElement>('start').disabled = !plan || !$<HTMLInputElement>('confirm-overwrite').checked;
  });
  $('stop').addEventListener('click', () => {
    stopRequested = true;
    $<HTMLButtonElement>('stop').disabled = true;
    $('progress-text').textContent += ' · stopping after this chunk…';
  });
  $('resume').addEventListener('click', () => void resume());
  $('ask-again-unreadable').addEventListener('change', () => void check(true));
  $('discard').addEventListener('click', () => void discard());

  const view = document.body.dataset.view;
  wireForgetPanel(view === 'forget');
  if (view === 'settings') {
    ($('settings-section') as HTMLDetailsElement).open = true;
    ($('spend-section') as HTMLDetailsElement).open = true;
  }
  if (view === 'key') ($('key-section') as HTMLDetailsElement).open = true;
  try {
    const state = await call('getSidebarState');
    operations = state.operations;
    const select = $<HTMLSelectElement>('operation');
    for (const op of operations) select.add(new Option(op.title, op.id));
    renderSettings(state.settings);
    renderAnswers(state.answers);
    renderSpend(state.spend);
    renderAllowance(state.allowance);
    renderAutomation(state.automation);
    renderUndo(state.undo);
    // Formulas may buy answers while the sidebar is open: look again every minute, and when the
    // user comes back to the sidebar from the sheet.
    setInterval(refreshAnswersNow, 60_000);
    window.addEventListener('focus', refreshAnswersNow);
    selection = state.selection;
    // An unfinished run: show its operation, and offer to resume it.
    if (state.run) select.value = state.run.operation;
    renderSelection();
    if (state.run) showResume(state.run);
    // No key yet: the key panel is what is needed first.
    if (!state.settings.keySet) ($('key-section') as HTMLDetailsElement).open = true;
    if (view === 'forget') $('forget-person').focus();
    else if (view === 'key' || !state.settings.keySet) $('api-key').focus();
    else if (view === 'settings') $('base-url').focus();
    else select.focus();
  } catch (error) {
    showMessage(errorText(error));
  }
  document.body.dataset.ready = 'true';
}

void init();
