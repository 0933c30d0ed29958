// The chat tools in code-server: a test-only extension (written and packaged here, installed beside
// the .vsix; nothing of it ships) lists `vscode.lm.tools` and calls ours through
// `vscode.lm.invokeTool`, as agent mode does, against a counting sandbox on 127.0.0.1. Outside a
// chat request VS Code itself calls the tool's prepareInvocation and shows its confirmation as a
// modal dialog: the test reads the cost, the input and the service there, then confirms.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { OPERATIONS, PERMITTED_USE } from '@enrich/core';
import { type SandboxServer, startSandboxServer } from '@enrich/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type CodeServer,
  closeAll,
  dialog,
  openWorkbench,
  runCommand,
  screenshot,
  screenshotIfFailed,
  setApiKey,
  startCodeServer,
} from './code-server';

const KEY = 'e2e-chat-key-5d81c07a';
const PHONE = '5550102030';
const CALL_TITLE = 'Enrichment Test: Call a Chat Tool';

let sandbox: SandboxServer;
let server: CodeServer;
let context: BrowserContext;
let page: Page;
let callerDir: string;
/** The sandbox's request count after the first call (Set API Key's free key check sent some too). */
let requestsAfterCall = 0;

// The test extension: one command that reads call.json from the workspace, lists the tools, invokes
// the one named (VS Code shows its confirmation first) and writes what came back to the file named.
const CALLER_JS = `
const vscode = require('vscode');
exports.activate = (context) => {
  context.subscriptions.push(vscode.commands.registerCommand('enrichTest.callTool', async () => {
    const folder = vscode.workspace.workspaceFolders[0].uri;
    const read = await vscode.workspace.fs.readFile(vscode.Uri.joinPath(folder, 'call.json'));
    const call = JSON.parse(new TextDecoder().decode(read));
    const out = { tools: vscode.lm.tools.map((t) => ({ name: t.name, tags: t.tags, description: t.description, inputSchema: t.inputSchema })) };
    try {
      const result = await vscode.lm.invokeTool(call.tool, { input: call.input, toolInvocationToken: undefined });
      out.text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
    } catch (error) {
      out.error = String(error && error.message ? error.message : error);
    }
    await vscode.workspace.fs.writeFile(vscode.Uri.joinPath(folder, call.out), new TextEncoder().encode(JSON.stringify(out)));
  }));
};
`;

function packCaller(): string {
  callerDir = mkdtempSync(join(tmpdir(), 'enrich-tool-caller-'));
  const manifest = {
    name: 'enrich-tool-caller',
    displayName: 'Enrichment tool caller (tests only)',
    description: 'Calls the Enrichment chat tools through vscode.lm.invokeTool, for the end-to-end tests.',
    version: '0.0.1',
    publisher: 'enrich-tests',
    license: 'MIT',
    repository: { type: 'git', url: 'https://github.com/enrich-toolkit/enrich-toolkit.git' },
    engines: { vscode: '^1.100.0' },
    main: './extension.js',
    contributes: {
      commands: [{ command: 'enrichTest.callTool', title: 'Call a Chat Tool', category: 'Enrichment Test' }],
    },
  };
  writeFileSync(join(callerDir, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(callerDir, 'extension.js'), CALLER_JS);
  writeFileSync(join(callerDir, 'README.md'), '# Enrichment tool caller\n\nTests only.\n');
  writeFileSync(join(callerDir, 'LICENSE'), 'MIT\n');
  const vsce = join(dirname(createRequire(import.meta.url).resolve('@vscode/vsce/package.json')), 'vsce');
  const vsix = join(callerDir, 'enrich-tool-caller.vsix');
  execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', vsix], {
    cwd: callerDir,
    stdio: 'pipe',
  });
  return vsix;
}

beforeAll(async () => {
  const caller = packCaller();
  sandbox = await startSandboxServer({ keys: [KEY] });
  server = await startCodeServer({ 'enrich.baseUrl': sandbox.url, 'enrich.baseUrlV3': sandbox.url }, [
    caller,
  ]);
  ({ context, page } = await openWorkbench(server));
});

afterEach((test) => screenshotIfFailed(page, test.task));

afterAll(async () => {
  await closeAll(context, server, sandbox);
  if (callerDir) rmSync(callerDir, { recursive: true, force: true });
});

interface Called {
  readonly tools: { name: string; tags: string[]; description: string; inputSchema: unknown }[];
  readonly text?: string;
  readonly error?: string;
}

let calls = 0;
/** Runs the caller's command; confirms VS Code's dialog, whose text is returned with what came back. */
async function callTool(tool: string, input: Record<string, unknown>, confirmTitle?: string) {
  const out = `result-${++calls}.json`;
  mkdirSync(server.workspaceDir, { recursive: true });
  writeFileSync(join(server.workspaceDir, 'call.json'), JSON.stringify({ tool, input, out }));
  await runCommand(page, CALL_TITLE);
  let confirmation = '';
  if (confirmTitle) {
    const box = dialog(page, confirmTitle);
    await box.waitFor();
    confirmation = (await box.textContent()) ?? '';
    await screenshot(page, `chat-tools-${calls}-confirmation`);
    await box.locator('.dialog-buttons a.monaco-button', { hasText: /^Yes$/ }).click();
  }
  const file = join(server.workspaceDir, out);
  const deadline = Date.now() + 60_000;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${out} was not written`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { confirmation, called: JSON.parse(readFileSync(file, 'utf8')) as Called };
}

describe('the chat tools in code-server', () => {
  // Set-up, not a test: the key, set through Enrichment: Set API Key as a user would.
  beforeAll(async () => {
    await setApiKey(page, KEY);
  });

  it('lists the nine tools in vscode.lm.tools; invokeTool shows the cost, input and service, then spends 1 transaction', async () => {
    const requestsBefore = sandbox.sandbox.stats().requests;
    const { confirmation, called } = await callTool(
      'enrich_phone_lookup',
      { Phone: '(555) 010-2030' },
      'Phone Lookup: spends 1 transaction',
    );
    const ours = called.tools.filter((t) => t.tags.includes('enrich'));
    expect(ours.map((t) => t.name).sort()).toEqual(
      OPERATIONS.map((op) => `enrich_${op.id.replaceAll('-', '_')}`).sort(),
    );
    for (const tool of ours) expect(tool.description).toContain(PERMITTED_USE);
    const phoneSchema = ours.find((t) => t.name === 'enrich_phone_lookup')?.inputSchema as
      | { properties: { Phone: { pattern: string } }; required: string[] }
      | undefined;
    expect(phoneSchema?.required).toEqual(['Phone']);
    // The schema accepts what core normalises (issue 40): a model's formatted phone is not "wrong".
    const phonePattern = new RegExp(phoneSchema?.properties.Phone.pattern ?? '^$');
    expect(phonePattern.test('(555) 010-2030')).toBe(true);
    expect(phonePattern.test('555-CALL-NOW')).toBe(false);
    expect(confirmation).toContain(`Input: Phone ${PHONE}`);
    expect(confirmation).toContain(`Service: a local sandbox: ${sandbox.url}/v3/lookup/phone`);
    expect(called.error).toBeUndefined();
    expect(called.text).toMatch(/^Phone Lookup: 5550102030: record \(200\)\./);
    expect(called.text).toMatch(/\nName\.FName: \S/);
    expect(called.text).toContain('This call spent 1 transaction.');
    expect(sandbox.sandbox.transactions(KEY)).toBe(1);
    requestsAfterCall = sandbox.sandbox.stats().requests;
    expect(requestsAfterCall).toBe(requestsBefore + 1);
    console.log(`chat tool confirmation: ${confirmation.replace(/\s+/g, ' ').trim()}`);
  });

  it('answers the same lookup free from the History, and the confirmation says so', async () => {
    const { confirmation, called } = await callTool(
      'enrich_phone_lookup',
      { Phone: PHONE },
      'Phone Lookup: free: answered from history',
    );
    expect(confirmation).toContain('no transaction spent');
    expect(called.text).toContain('nothing was sent, no transaction spent');
    expect(sandbox.sandbox.transactions(KEY)).toBe(1);
    expect(sandbox.sandbox.stats().requests).toBe(requestsAfterCall);
  });

  it('refuses an invalid input in words, with no confirmation and nothing sent', async () => {
    const { called } = await callTool('enrich_phone_lookup', { Phone: '555010203' });
    expect(called.text).toContain('Phone must be 10 digits; got 9');
    expect(called.text).toContain('Nothing was sent; no transaction spent.');
    expect(sandbox.sandbox.stats().requests).toBe(requestsAfterCall);
  });

  it('lists the chat call in the History view, as a palette call', async () => {
    await runCommand(page, 'Enrichment: Show History');
    const row = page.locator('.pane-body .monaco-list-row', { hasText: `Phone Lookup: ${PHONE}` });
    await row.waitFor();
    await expect(
      page.locator('.pane-body .monaco-list-row', { hasText: 'Phone Lookup:' }).count(),
    ).resolves.toBe(1);
    await screenshot(page, 'chat-tools-history');
  });
});
