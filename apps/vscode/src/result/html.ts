// The result view's page, from a ResultModel. Everything shown is escaped; the page loads nothing
// (default-src 'none') and runs only its own script and style, by nonce. Colours and fonts come from
// VS Code's theme variables, so the page follows light, dark and high-contrast themes. Every action
// is a real <button> (Tab reaches it, Enter and Space press it); empty fields fold into <details>.
import { esc, pageStart } from '../html';
import type { FieldView, GroupView, ResultModel } from './model';

/** What the page's buttons ask of the extension. */
export type ViewAction = 'copy' | 'copyJson' | 'copyCurl' | 'callAgain' | 'openJson' | 'help';

export interface PageOptions {
  readonly nonce: string;
  /** The action that helps after an error or a no-match ("Set API Key", "Retry"...), if any. */
  readonly help?: string;
  /** False when the entry holds no request to repeat (nothing was sent). */
  readonly canCallAgain: boolean;
}

export const CALL_AGAIN_LABEL = 'Call again (spends 1 transaction)';

export function renderPage(model: ResultModel, options: PageOptions): string {
  const { nonce } = options;
  return `${pageStart(model.title, { nonce, style: STYLE, script: true })}
<header>
<h1>${esc(model.title)}</h1>
<p class="summary"><span class="words">${esc(model.words)}</span> · status ${esc(model.status)} · ${esc(model.spent)}</p>
<div class="actions" role="toolbar" aria-label="Result actions">
${options.help ? button('help', options.help, 'primary') : ''}
${model.groups.length > 0 ? button('copyJson', 'Copy as JSON') : ''}
${options.canCallAgain ? button('copyCurl', 'Copy as curl') : ''}
${options.canCallAgain ? button('callAgain', CALL_AGAIN_LABEL) : ''}
${button('openJson', 'Open JSON document')}
</div>
<p id="said" class="said" role="status" aria-live="polite"></p>
</header>
<main>
${model.message ? `<p class="message">${esc(model.message)}</p>` : ''}
${model.notes.length > 0 ? notes(model.notes) : ''}
${model.groups.map(group).join('\n')}
</main>
<script nonce="${nonce}">${SCRIPT}</script>
</body>
</html>`;
}

function group(g: GroupView, n: number): string {
  const id = `g${n}`;
  const empty =
    g.empty.length === 0
      ? ''
      : `<details><summary>${g.empty.length} empty field${g.empty.length === 1 ? '' : 's'}</summary><p class="empty">${g.empty
          .map((f) => esc(f.label))
          .join(', ')}</p></details>`;
  const rows =
    g.fields.length === 0
      ? '<p class="none">Nothing in this group.</p>'
      : `<table><tbody>${g.fields.map(row).join('')}</tbody></table>`;
  return `<section aria-labelledby="${id}"><h2 id="${id}">${esc(g.title)}</h2>${rows}${empty}</section>`;
}

function row(f: FieldView): string {
  const likely = f.likely
    ? ` <span class="likely" title="A likely meaning: the API description does not give one">likely: ${esc(f.likely)}</span>`
    : '';
  const flag = f.flag
    ? ` <span class="flag" title="Differs from the API description">not as documented: ${esc(f.flag)}</span>`
    : '';
  return `<tr><th scope="row">${esc(f.label)}</th><td><span class="value">${esc(f.text)}</span>${likely}${flag}</td><td class="copy">${button('copy', 'Copy', 'small', f.index, `Copy ${f.label}`)}</td></tr>`;
}

function notes(items: readonly string[]): string {
  return `<section aria-labelledby="notes"><h2 id="notes">Not as documented</h2><ul>${items
    .map((n) => `<li class="flag">${esc(n)}</li>`)
    .join('')}</ul></section>`;
}

function button(action: ViewAction, label: string, kind = '', index?: number, aria?: string): string {
  const data = index === undefined ? '' : ` data-index="${index}"`;
  const label2 = aria ? ` aria-label="${esc(aria)}"` : '';
  return `<button type="button" class="${kind}" data-action="${action}"${data}${label2}>${esc(label)}</button>`;
}

const STYLE = `
body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); background: var(--vscode-editor-background); padding: 0 1.2em 2em; line-height: 1.4; }
h1 { font-size: 1.3em; margin: 0.8em 0 0.2em; }
h2 { font-size: 1.05em; margin: 1.2em 0 0.3em; border-bottom: 1px solid var(--vscode-panel-border, var(--vscode-widget-border, transparent)); padding-bottom: 0.2em; }
.summary { margin: 0 0 0.6em; color: var(--vscode-descriptionForeground); }
.actions { display: flex; flex-wrap: wrap; gap: 0.4em; }
button { font: inherit; color: var(--vscode-button-secondaryForeground); background: var(--vscode-button-secondaryBackground); border: 1px solid var(--vscode-button-border, transparent); padding: 0.25em 0.7em; border-radius: 2px; cursor: pointer; }
button:hover { background: var(--vscode-button-secondaryHoverBackground); }
button.primary { color: var(--vscode-button-foreground); background: var(--vscode-button-background); }
button.primary:hover { background: var(--vscode-button-hoverBackground); }
button.small { padding: 0 0.5em; font-size: 0.9em; }
button:focus-visible, summary:focus-visible { outline: 1px solid var(--vscode-focusBorder); outline-offset: 2px; }
table { border-collapse: collapse; }
th { text-align: left; font-weight: normal; color: var(--vscode-descriptionForeground); padding: 0.15em 1.2em 0.15em 0; vertical-align: top; white-space: nowrap; }
td { padding: 0.15em 0.6em 0.15em 0; vertical-align: top; }
.value { font-family: var(--vscode-editor-font-family); }
.likely { color: var(--vscode-textLink-foreground); font-style: italic; margin-left: 0.5em; }
.flag { color: var(--vscode-editorWarning-foreground); margin-left: 0.5em; }
li.flag { margin-left: 0; }
details { margin-top: 0.3em; color: var(--vscode-descriptionForeground); }
summary { cursor: pointer; }
.empty { margin: 0.2em 0 0 1em; }
.message { font-size: 1.1em; }
.said { min-height: 1.2em; margin: 0.3em 0 0; color: var(--vscode-descriptionForeground); }
`;

// Buttons name their action; the extension does the work (the clipboard, commands) and may answer
// with a line to show in the status region, which screen readers announce.
const SCRIPT = `
const vscode = acquireVsCodeApi();
document.addEventListener('click', (event) => {
  const target = event.target instanceof Element ? event.target.closest('button[data-action]') : null;
  if (!target) return;
  const index = target.dataset.index === undefined ? undefined : Number(target.dataset.index);
  vscode.postMessage({ action: target.dataset.action, index });
});
window.addEventListener('message', (event) => {
  if (event.data && typeof event.data.said === 'string') document.getElementById('said').textContent = event.data.said;
});
`;
