// The chat tools: one per operation in the manifest (schema from core's catalog, the permitted use in
// the descriptions), registered at activation, and called as VS Code calls them: prepareInvocation
// (the confirmation: cost, input, service), then invoke. Against a real sandbox over HTTP on
// 127.0.0.1; its transaction counter is the proof of what was spent.
import { readFileSync } from 'node:fs';
import { getOperation, OPERATIONS, operationInputSchema, PERMITTED_USE } from '@enrich/core';
import { afterEach, describe, expect, it } from 'vitest';
import type * as vscode from 'vscode';
import { FREE_FROM_HISTORY, type OperationTool, SPENDS } from '../../src/chat/tools';
import { deactivate } from '../../src/extension';
import { HISTORY_STATE_KEY, type HistoryEntry } from '../../src/history';
import { CHAT_TOOL_TAG, COMMAND, chatToolName, chatToolReference } from '../../src/manifest';
import {
  CancellationTokenSource,
  commands,
  type LanguageModelTextPart,
  lm,
  setSetting,
} from '../vscode-stub';
import { activateWithSandbox, closeHarnesses, type Harness, TEST_KEY } from './harness';

const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));

let harness: Harness | undefined;
afterEach(async () => {
  await deactivate();
  await closeHarnesses();
});

const PHONE = '5550102030';
const phoneLookup = getOperation('phone-lookup');

const h = () => {
  if (!harness) throw new Error('not activated');
  return harness;
};
const spent = () => h().server.sandbox.transactions(TEST_KEY);
const requests = () => h().server.sandbox.stats().requests;
const stored = () => h().context.globalState.get<HistoryEntry[]>(HISTORY_STATE_KEY, []) ?? [];

function tool(name = chatToolName(phoneLookup)): OperationTool {
  const found = lm.registered(name) as OperationTool | undefined;
  if (!found) throw new Error(`${name} is not registered`);
  return found;
}

async function prepare(input: Record<string, unknown>, name?: string) {
  const prepared = await tool(name).prepareInvocation({ input } as never);
  const message = prepared.confirmationMessages?.message;
  return {
    title: prepared.confirmationMessages?.title,
    message: typeof message === 'string' ? message : message?.value,
    invocation: String(prepared.invocationMessage ?? ''),
  };
}

async function invoke(input: Record<string, unknown>, name?: string): Promise<string> {
  const result = (await tool(name).invoke(
    { input, toolInvocationToken: undefined } as vscode.LanguageModelToolInvocationOptions<
      Record<string, unknown>
    >,
    new CancellationTokenSource().token as vscode.CancellationToken,
  )) as unknown as { content: LanguageModelTextPart[] };
  expect(result.content).toHaveLength(1);
  return result.content[0]?.value ?? '';
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
        properties: { Phone: { type: 'string', pattern: '^[0-9]{10}$' } },
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
    await invoke({ Phone: PHONE });
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
