// The chat tools: one per operation in the manifest (schema from core's catalog, the permitted use in
// the descriptions), registered at activation, and called as VS Code calls them: prepareInvocation
// (the confirmation: cost, input, service), then invoke. Against a real sandbox over HTTP on
// 127.0.0.1; its transaction counter is the proof of what was spent. What invoke does is bound to
// what the confirmation said (free or paid, the service, whose key); calls of one input on their
// way at once buy it once, with the palette's too; a cancelled call that may have been billed is
// recorded as such; the input is shown as literal text.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import {
  FIELD_KINDS,
  getOperation,
  OPERATIONS,
  operationInputSchema,
  PERMITTED_USE,
  readLedger,
} from '@enrich/core';
import { afterEach, describe, expect, it } from 'vitest';
import type * as vscode from 'vscode';
import { FREE_FROM_HISTORY, SPENDS } from '../../src/chat/confirmation-text';
import type { OperationTool } from '../../src/chat/tools';
import { deactivate } from '../../src/extension';
import type { HistoryEntry } from '../../src/history';
import {
  CHAT_TOOL_TAG,
  COMMAND,
  chatToolName,
  chatToolReference,
  operationCommandIdOf,
} from '../../src/manifest';
import { LEDGER_FILE } from '../../src/spend/ledger';
import {
  CancellationTokenSource,
  commands,
  type LanguageModelTextPart,
  lm,
  setSetting,
  ui,
} from '../vscode-stub';
import { activateWithSandbox, closeHarnesses, type Harness, storedHistory, TEST_KEY } from './harness';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
// A CommonMark renderer, as VS Code renders a confirmation's Markdown (markdown-it comes with vsce).
const MarkdownIt = createRequire(createRequire(import.meta.url).resolve('@vscode/vsce/package.json'))(
  'markdown-it',
) as new (options: {
  html: boolean;
  linkify: boolean;
}) => { render(text: string): string };
const markdown = new MarkdownIt({ html: false, linkify: true });

let harness: Harness | undefined;
afterEach(async () => {
  await deactivate();
  await closeHarnesses();
});

const PHONE = '5550102030';
const OTHER_PHONE = '5550102031';
const phoneLookup = getOperation('phone-lookup');

const h = () => {
  if (!harness) throw new Error('not activated');
  return harness;
};
const spent = () => h().server.sandbox.transactions(TEST_KEY);
const requests = () => h().server.sandbox.stats().requests;
const stored = () => storedHistory(h().context);
const ledger = () => {
  try {
    return readLedger(readFileSync(join(h().context.globalStorageUri.fsPath, LEDGER_FILE), 'utf8')).entries;
  } catch {
    return [];
  }
};

function tool(name = chatToolName(phoneLookup)): OperationTool {
  const found = lm.registered(name) as OperationTool | undefined;
  if (!found) throw new Error(`${name} is not registered`);
  return found;
}

const textOf = (message: string | { value: string } | undefined) =>
  typeof message === 'string' ? message : message?.value;

/**
 * VS Code's first step: the confirmation the person is shown (and, here, accepts). `message` is its
 * Markdown as rendered (what the person reads); `markdown` is the source.
 */
async function prepare(input: Record<string, unknown>, name?: string) {
  const prepared = await tool(name).prepareInvocation({ input } as never);
  const source = textOf(prepared.confirmationMessages?.message);
  return {
    title: prepared.confirmationMessages?.title,
    markdown: source,
    message: source === undefined ? undefined : shown(markdown.render(source)),
    invocation: textOf(prepared.invocationMessage) ?? '',
    /** A plain string: VS Code shows it as text (MarkdownString.appendText), never as Markdown. */
    invocationIsText: typeof prepared.invocationMessage === 'string',
  };
}

/** VS Code's second step, after the person pressed Continue. */
async function invoke(
  input: Record<string, unknown>,
  name?: string,
  cancel = new CancellationTokenSource(),
): Promise<string> {
  const result = (await tool(name).invoke(
    { input, toolInvocationToken: undefined } as vscode.LanguageModelToolInvocationOptions<
      Record<string, unknown>
    >,
    cancel.token as vscode.CancellationToken,
  )) as unknown as { content: LanguageModelTextPart[] };
  expect(result.content).toHaveLength(1);
  return result.content[0]?.value ?? '';
}

/** Both steps, one after the other, as VS Code runs a tool the person confirms at once. */
async function call(input: Record<string, unknown>, name?: string): Promise<string> {
  await prepare(input, name);
  return invoke(input, name);
}

/** What a Markdown text shows once rendered: its text, tags removed and entities read. */
function shown(html: string): string {
  return html
    .replace(/<[^>]*>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

describe('the manifest', () => {
  it('contributes one chat tool per operation, its input schema generated from the catalog', () => {
    const tools = manifest.contributes.languageModelTools;
    expect(tools.map((t: { name: string }) => t.name)).toEqual(OPERATIONS.map(chatToolName));
    for (const op of OPERATIONS) {
      const contributed = tools.find((t: { name: string }) => t.name === chatToolName(op));
      expect(contributed).toMatchObject({
        displayName: op.title,
        toolReferenceName: chatToolReference(op),
        canBeReferencedInPrompt: true,
        tags: [CHAT_TOOL_TAG],
      });
      expect(contributed.inputSchema).toEqual(JSON.parse(JSON.stringify(operationInputSchema(op))));
      expect(Object.keys(contributed.inputSchema.properties)).toEqual(op.inputs.map((f) => f.name));
      expect(contributed.modelDescription).toMatch(/one paid transaction/);
      expect(contributed.modelDescription).toContain(PERMITTED_USE);
      expect(contributed.userDescription).toContain(PERMITTED_USE);
    }
    expect(tools.find((t: { name: string }) => t.name === 'enrich_phone_lookup')).toMatchObject({
      toolReferenceName: 'phoneLookup',
      inputSchema: {
        // What core normalises is accepted: "(555) 010-2030" as typed (issue 40).
        properties: { Phone: { type: 'string', pattern: FIELD_KINDS.phone.typed.pattern } },
        required: ['Phone'],
        additionalProperties: false,
      },
    });
    expect(
      Object.keys(
        tools.find((t: { name: string }) => t.name === 'enrich_tcpa_verify').inputSchema.properties,
      ),
    ).toEqual(['phone', 'last_name']);
  });
});

describe('the chat tools', () => {
  it('are registered at activation, one per operation', async () => {
    harness = await activateWithSandbox();
    expect(lm.registeredNames()).toEqual(OPERATIONS.map(chatToolName));
  });

  it('confirm the cost, input and service; a call spends 1 transaction and lands in the History', async () => {
    harness = await activateWithSandbox();
    const confirmation = await prepare({ Phone: '(555) 010-2030' });
    expect(confirmation.title).toBe(`Phone Lookup: ${SPENDS}`);
    expect(confirmation.message).toContain(`Input: Phone ${PHONE}`);
    expect(confirmation.message).toContain(`Service: a local sandbox: ${h().server.url}/v3/lookup/phone`);
    expect(confirmation.message).toContain('spends 1 transaction');
    expect(requests()).toBe(0);

    const text = await invoke({ Phone: '(555) 010-2030' });
    expect(spent()).toBe(1);
    expect(text).toMatch(/^Phone Lookup: 5550102030: record \(200\)\./);
    expect(text).toMatch(/\nName\.FName: \S/);
    expect(text).toContain('This call spent 1 transaction.');
    expect(stored()).toHaveLength(1);
    expect(stored()[0]).toMatchObject({
      operationId: 'phone-lookup',
      input: { Phone: PHONE },
      paid: true,
    });
    expect(text).not.toContain(TEST_KEY);
  });

  it('answer a repeat free from the History, and say so before and after', async () => {
    harness = await activateWithSandbox();
    await call({ Phone: PHONE });
    expect(spent()).toBe(1);
    const first = stored();

    const confirmation = await prepare({ Phone: '555.010.2030' });
    expect(confirmation.title).toBe(`Phone Lookup: ${FREE_FROM_HISTORY}`);
    expect(confirmation.message).toContain(`Input: Phone ${PHONE}`);
    expect(confirmation.message).toContain('no transaction spent');
    const text = await invoke({ Phone: '555.010.2030' });
    expect(text).toContain(FREE_FROM_HISTORY);
    expect(text).toContain('nothing was sent, no transaction spent');
    expect(text).toMatch(/\nName\.FName: \S/);
    expect(spent()).toBe(1);
    expect(requests()).toBe(1);
    expect(stored()).toEqual(first);

    // With reuse turned off, a repeat is a new call again, and says what it costs.
    await setSetting('enrich.reuseAnswersHours', 0);
    expect((await prepare({ Phone: PHONE })).title).toBe(`Phone Lookup: ${SPENDS}`);
  });

  it('refuse invalid input in words naming the field and the rule, spending nothing', async () => {
    harness = await activateWithSandbox();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['enrich_phone_lookup', { Phone: '555010203' }, /Phone must be 10 digits; got 9/],
      ['enrich_email_verify', { Email: 'jane.example.com' }, /Email must have exactly one @/],
      ['enrich_phone_append', { FName: 'Jane' }, /LName, Address1 and Zip are required/],
      ['enrich_phone_lookup', { Phone: 5550102030, Extra: 'x' }, /Extra/],
    ];
    for (const [name, input, rule] of cases) {
      const confirmation = await prepare(input, name);
      expect(confirmation.title).toBeUndefined();
      expect(confirmation.invocation).toMatch(/invalid input, nothing sent/);
      const text = await invoke(input, name);
      expect(text).toMatch(rule);
      expect(text).toContain('invalid input');
      expect(text).toContain('Nothing was sent; no transaction spent.');
    }
    expect(requests()).toBe(0);
    expect(stored()).toEqual([]);
  });

  it('send nothing without a key, and say how to set one or try the sandbox', async () => {
    harness = await activateWithSandbox({ setKey: false });
    expect((await prepare({ Phone: PHONE })).title).toBeUndefined();
    const text = await invoke({ Phone: PHONE });
    expect(text).toContain('no API key is set, so nothing was sent');
    expect(text).toContain('Enrichment: Try Without a Key');
    expect(requests()).toBe(0);
  });

  it('use the sandbox of Try Without a Key while trying, and keep the call in the History', async () => {
    harness = await activateWithSandbox({ setKey: false });
    const url = await commands.executeCommand<string>(COMMAND.tryWithoutKey);
    const confirmation = await prepare({ phone: PHONE, last_name: 'Doe' }, 'enrich_tcpa_verify');
    expect(confirmation.title).toBe(`TCPA Verify: ${SPENDS}`);
    expect(confirmation.message).toContain(
      `Service: the sandbox of Try Without a Key (made-up data, nothing billed): ${url}`,
    );
    const text = await invoke({ phone: PHONE, last_name: 'Doe' }, 'enrich_tcpa_verify');
    expect(text).toMatch(/\nverification_code: \S+ \(likely: [^)]+\)/);
    expect(stored()[0]?.request.url.startsWith(url)).toBe(true);
    expect(requests()).toBe(0); // the test's own sandbox saw nothing
  });
});

// What invoke does is what the confirmation said: the person's Continue is a ceiling. prepareInvocation
// remembers what it showed for this input; invoke compares, and sends nothing when it changed.
describe('a confirmation binds what the call does', () => {
  it('an answer confirmed free from the History is not bought once the History was cleared', async () => {
    harness = await activateWithSandbox();
    await call({ Phone: PHONE });
    expect(spent()).toBe(1);
    expect((await prepare({ Phone: PHONE })).title).toBe(`Phone Lookup: ${FREE_FROM_HISTORY}`);
    ui.answer = (m) => (m.actions.includes('Clear History') ? 'Clear History' : undefined);
    await commands.executeCommand(COMMAND.clearHistory);
    expect(stored()).toEqual([]);

    const text = await invoke({ Phone: PHONE });
    expect(spent()).toBe(1);
    expect(requests()).toBe(1);
    expect(text).toContain('the confirmation said "free: answered from history"');
    expect(text).toContain('that answer is no longer in the History');
    expect(text).toContain('Nothing was sent; no transaction spent.');
    expect(stored()).toEqual([]);
  });

  it('with enrich.historySize at 1, two calls confirmed as one free and one paid spend one', async () => {
    harness = await activateWithSandbox();
    await setSetting('enrich.historySize', 1);
    await call({ Phone: PHONE });
    expect(spent()).toBe(1);
    // One turn: both confirmed before either runs.
    expect((await prepare({ Phone: PHONE })).title).toBe(`Phone Lookup: ${FREE_FROM_HISTORY}`);
    expect((await prepare({ Phone: OTHER_PHONE })).title).toBe(`Phone Lookup: ${SPENDS}`);
    const paid = await invoke({ Phone: OTHER_PHONE });
    const free = await invoke({ Phone: PHONE });
    expect(paid).toContain('This call spent 1 transaction.');
    expect(spent()).toBe(2);
    expect(free).toContain('that answer is no longer in the History');
    expect(free).toContain('Nothing was sent; no transaction spent.');
  });

  it('a call confirmed on the sandbox of Try Without a Key sends nothing after Return to the Real Service', async () => {
    harness = await activateWithSandbox();
    await commands.executeCommand(COMMAND.tryWithoutKey);
    const confirmation = await prepare({ Phone: PHONE });
    expect(confirmation.message).toContain('the sandbox of Try Without a Key (made-up data, nothing billed)');
    await commands.executeCommand(COMMAND.useRealService);

    const text = await invoke({ Phone: PHONE });
    // The real service (the harness's sandbox, with the stored key) saw nothing.
    expect(requests()).toBe(0);
    expect(spent()).toBe(0);
    expect(text).toContain('Try Without a Key ended since the confirmation');
    expect(text).toContain('Nothing was sent; no transaction spent.');
    expect(stored()).toEqual([]);
  });

  it('a paid call is not sent with another key than the one confirmed', async () => {
    harness = await activateWithSandbox({ keys: [TEST_KEY, 'second-key-4d2e'] });
    await prepare({ Phone: PHONE });
    await h().context.secrets.store('enrich.apiKey', 'second-key-4d2e');
    const text = await invoke({ Phone: PHONE });
    expect(requests()).toBe(0);
    expect(text).toContain('the API key changed since the confirmation');
    expect(text).not.toContain('second-key-4d2e');
  });

  it('a call VS Code did not confirm first sends nothing, and says why', async () => {
    harness = await activateWithSandbox();
    const text = await invoke({ Phone: PHONE });
    expect(requests()).toBe(0);
    expect(text).toContain('no confirmation was shown for this input');
  });
});

describe('calls on their way at once', () => {
  it('the same input invoked 5 times in parallel buys it once; each says what it cost', async () => {
    harness = await activateWithSandbox({ sandbox: { latencyMs: 300 } });
    for (let i = 0; i < 5; i++)
      expect((await prepare({ Phone: PHONE })).title).toBe(`Phone Lookup: ${SPENDS}`);
    const texts = await Promise.all(Array.from({ length: 5 }, () => invoke({ Phone: PHONE })));
    expect(spent()).toBe(1);
    expect(requests()).toBe(1);
    expect(texts.filter((t) => t.includes('This call spent 1 transaction.'))).toHaveLength(1);
    expect(
      texts.filter((t) =>
        t.includes('answered by the same request, already on its way: no transaction spent'),
      ),
    ).toHaveLength(4);
    for (const text of texts) expect(text).toMatch(/\nName\.FName: \S/);
    expect(stored()).toHaveLength(1);
    expect(ledger().reduce((n, e) => n + e.count, 0)).toBe(1);
  });

  it('a palette call and a chat tool call of one input at once buy it once', async () => {
    harness = await activateWithSandbox({ sandbox: { latencyMs: 300 } });
    await prepare({ Phone: PHONE });
    const [entry, text] = await Promise.all([
      commands.executeCommand<HistoryEntry | undefined>(operationCommandIdOf('phone-lookup'), {
        Phone: PHONE,
      }),
      invoke({ Phone: PHONE }),
    ]);
    expect(entry?.outcome.kind).toBe('record');
    expect(text).toMatch(/record \(200\)/);
    expect(spent()).toBe(1);
    expect(requests()).toBe(1);
  });
});

describe('a cancelled call', () => {
  it('that the service billed is recorded as may have been paid, in the ledger and the History, and says so', async () => {
    harness = await activateWithSandbox({ sandbox: { latencyMs: 1500 } });
    await prepare({ Phone: PHONE });
    const cancel = new CancellationTokenSource();
    setTimeout(() => cancel.cancel(), 400);
    const started = Date.now();
    const text = await invoke({ Phone: PHONE }, undefined, cancel);
    expect(Date.now() - started).toBeLessThan(1400);
    // The sandbox bills a request when it takes it, as a service may.
    expect(spent()).toBe(1);
    expect(text).toContain('Phone Lookup: cancelled after the request was sent');
    expect(text).toContain('may have been paid');
    expect(stored()).toHaveLength(1);
    expect(stored()[0]).toMatchObject({
      input: { Phone: PHONE },
      paid: false,
      outcome: { kind: 'error', error: { code: 'unanswered' } },
    });
    expect(ledger()).toEqual([
      expect.objectContaining({ operation: 'phone-lookup', run: stored()[0]?.id, count: 1 }),
    ]);
  });

  it('cancelled before anything was sent records nothing', async () => {
    harness = await activateWithSandbox();
    await prepare({ Phone: PHONE });
    const cancel = new CancellationTokenSource();
    cancel.cancel();
    const text = await invoke({ Phone: PHONE }, undefined, cancel);
    expect(requests()).toBe(0);
    expect(text).toBe('Phone Lookup: cancelled before anything was sent; no transaction spent.');
    expect(stored()).toEqual([]);
    expect(ledger()).toEqual([]);
  });
});

describe('the confirmation shows the input as literal text', () => {
  it('Markdown in an input shows as written: no image is loaded, nothing is hidden', async () => {
    harness = await activateWithSandbox();
    const address = '1 Main ![p](https://e.example/p.png?d=5550102030)';
    const input = { FName: 'Jane', LName: 'Doe', Address1: address, Zip: '02134' };
    const confirmation = await prepare(input, 'enrich_phone_append');
    const html = markdown.render(confirmation.markdown ?? '');
    expect(html).not.toMatch(/<img|<a /);
    expect(confirmation.message).toContain(`Input: FName Jane, LName Doe, Address1 ${address}, Zip 02134`);
    expect(confirmation.invocationIsText).toBe(true);
    expect(requests()).toBe(0);
  });
});
