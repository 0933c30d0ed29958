// The result view against a real sandbox over HTTP: groups, likely meanings, folded empty fields,
// flags for answers that differ from the API description, the page's security policy, and each
// button (the page sends only an action and an index; the extension does the work).
import { API_KEY_ENV, getOperation } from '@enrich/core';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryEntry } from '../../src/history';
import { esc } from '../../src/html';
import { operationCommandId } from '../../src/manifest';
import { CALL_AGAIN_LABEL } from '../../src/result/html';
import { buildModel } from '../../src/result/model';
import { commands, reply, ui, type WebviewPanelStub } from '../vscode-stub';
import { activateWithSandbox, closeHarnesses, type Harness, TEST_KEY } from './harness';

let harness: Harness | undefined;
afterEach(closeHarnesses);

const run = (id: string, input: Record<string, string>) =>
  commands.executeCommand<HistoryEntry>(operationCommandId(getOperation(id as 'phone-lookup')), input);

function panel(): WebviewPanelStub {
  const shown = ui.panels.at(-1);
  if (!shown) throw new Error('No result view was shown');
  return shown;
}

/** The page's visible text, tags removed, entities decoded: what a reader sees. */
function text(html: string): string {
  return html
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&#(\d+);/g, (_m, code) => String.fromCharCode(Number(code)))
    .replace(/\s+/g, ' ');
}

describe('the result view', () => {
  it('shows TCPA Verify codes with their likely meanings, under a strict policy with a nonce', async () => {
    harness = await activateWithSandbox({ resultView: 'view' });
    const entry = await run('tcpa-verify', { phone: '5550102030', last_name: 'Doe' });
    expect(entry.outcome.kind).toBe('record');
    expect(ui.documents).toEqual([]);
    const { html } = panel().webview;
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1] ?? '';
    expect(nonce.length).toBeGreaterThanOrEqual(16);
    expect(csp).toBe(`default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';`);
    // Every script and style carries the nonce; nothing is loaded from anywhere.
    expect([...html.matchAll(/<(script|style)([^>]*)>/g)].every((m) => m[2] === ` nonce="${nonce}"`)).toBe(
      true,
    );
    expect(html).not.toMatch(/\s(src|href)=/);
    expect(panel().options).toMatchObject({ enableScripts: true, localResourceRoots: [] });
    const record = (entry.outcome as { record: Record<string, string> }).record;
    const model = buildModel(entry);
    const answer = model.groups.find((g) => g.title === 'Answer');
    const code = answer?.fields.find((f) => f.label === 'verification_code');
    expect(code?.text).toBe(record.verification_code);
    expect(code?.likely).toBeTruthy();
    expect(text(html)).toContain(`verification_code ${record.verification_code} likely: ${code?.likely}`);
    expect(text(html)).toContain(CALL_AGAIN_LABEL);
  });

  it('groups an Auto Append record and folds its empty fields away', async () => {
    harness = await activateWithSandbox({ resultView: 'view' });
    const entry = await run('auto-append', { Email: 'jane.doe@example.com' });
    const model = buildModel(entry);
    expect(model.groups.map((g) => g.title)).toEqual([
      'Name',
      'Address',
      'Identifiers',
      'Vehicle 1',
      'Vehicle 2',
      'Vehicle 3',
      'Vehicle 4',
    ]);
    const record = (entry.outcome as { record: Record<string, Record<string, string>> }).record;
    expect(model.groups[0]?.fields.find((f) => f.label === 'FName')?.text).toBe(record.Name?.FName);
    // Every empty field is folded, none is shown as a row; each group's fields are all accounted for.
    for (const group of model.groups) {
      for (const f of group.fields) expect(f.text).not.toBe('');
      for (const f of group.empty) expect(f.text).toBe('');
    }
    const emptySlots = model.groups.filter((g) => g.title.startsWith('Vehicle') && g.fields.length === 0);
    for (const slot of emptySlots) expect(slot.empty.length).toBe(9);
    const { html } = panel().webview;
    const folded = model.groups.reduce((n, g) => n + (g.empty.length > 0 ? 1 : 0), 0);
    expect(html.match(/<details>/g)?.length ?? 0).toBe(folded);
  });

  it('flags fields that differ from the API description and shows unknown ones', async () => {
    harness = await activateWithSandbox({ resultView: 'view' });
    harness.server.sandbox.configure({ misbehave: ['other-case', 'extra-fields'] });
    const entry = await run('phone-lookup', { Phone: '5550102030' });
    const model = buildModel(entry);
    expect(model.words).toMatch(/^record \(\d+ fields not as documented\)$/);
    const flagged = model.groups.flatMap((g) => g.fields).filter((f) => f.flag);
    expect(flagged.some((f) => /sent as/.test(f.flag ?? ''))).toBe(true);
    const unknown = model.groups.find((g) => g.title === 'Not in the API description');
    expect(unknown?.fields.map((f) => f.label)).toContain('DID');
    expect(text(panel().webview.html)).toContain('not as documented: sent as');
  });

  it('copies a value, the JSON and curl (no key), calls again for one transaction, opens the JSON', async () => {
    harness = await activateWithSandbox({ resultView: 'view' });
    const entry = await run('phone-lookup', { Phone: '5550102030' });
    const view = panel();
    const model = buildModel(entry);
    const city = model.groups.find((g) => g.title === 'Address')?.fields.find((f) => f.label === 'City');
    await view.send({ action: 'copy', index: city?.index });
    expect(ui.clipboard).toBe(city?.text);
    expect(view.posted.at(-1)).toEqual({ said: 'Copied the value.' });
    // An index the page could not have sent copies nothing.
    await view.send({ action: 'copy', index: 10_000 });
    await view.send({ action: 'copy', index: '0' });
    expect(ui.clipboard).toBe(city?.text);
    await view.send({ action: 'copyJson' });
    expect(JSON.parse(ui.clipboard).Name.FName).toBeTruthy();
    await view.send({ action: 'copyCurl' });
    expect(ui.clipboard).toContain(`$${API_KEY_ENV}`);
    expect(ui.clipboard).not.toContain(TEST_KEY);
    const before = harness.server.sandbox.transactions(TEST_KEY);
    await view.send({ action: 'callAgain' });
    await new Promise((r) => setTimeout(r, 200));
    expect(harness.server.sandbox.transactions(TEST_KEY)).toBe(before + 1);
    expect(ui.panels.length).toBe(1);
    await view.send({ action: 'openJson' });
    expect(JSON.parse(ui.documents.at(-1)?.text ?? '{}').operation).toBe('Phone Lookup');
  });

  it("titles its tab, and the JSON document's, with the operation and the time, never the input", async () => {
    // VS Code titles the window with the active tab; code-server's browser keeps page titles in
    // files that Forget a Person cannot reach (forget.e2e.test.ts scans them).
    harness = await activateWithSandbox({ resultView: 'view' });
    const entry = await run('phone-lookup', { Phone: '(555) 010-2030' });
    const time = new Date(entry.at).toTimeString().slice(0, 8);
    expect(panel().title).toBe(`Phone Lookup ${time}`);
    expect(text(panel().webview.html)).toContain('Phone Lookup: 5550102030');
    await panel().send({ action: 'openJson' });
    const document = ui.documents.at(-1);
    expect(document?.uri.path).toBe(`/Phone Lookup ${time}.json`);
    expect(JSON.parse(document?.text ?? '{}').input).toEqual({ Phone: '5550102030' });
  });

  it('says no match in words, and offers Set API Key on a 401', async () => {
    harness = await activateWithSandbox({ resultView: 'view' });
    await run('phone-lookup', { Phone: '5550000204' });
    expect(text(panel().webview.html)).toContain('No record matches 5550000204.');
    await harness.context.secrets.store('enrich.apiKey', 'not-the-sandbox-key');
    await run('phone-lookup', { Phone: '5550102031' });
    const html = panel().webview.html;
    expect(html).toContain('<button type="button" class="primary" data-action="help">Set API Key</button>');
    reply({ cancel: true });
    await panel().send({ action: 'help' });
    expect(ui.executed.at(-1)?.command).toBe('enrich.setApiKey');
    expect(ui.replies).toEqual([]); // the key box was shown, and the user closed it
  });

  it('escapes what the service sent', () => {
    expect(esc('<img src=x onerror=alert(1)>"\'&')).toBe(
      '&#60;img src=x onerror=alert(1)&#62;&#34;&#39;&#38;',
    );
  });
});
