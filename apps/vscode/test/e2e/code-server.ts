// Runs the packaged .vsix in a real VS Code: code-server 4.100.3 (installed by
// scripts/install-code-server.sh into .e2e/code-server) on 127.0.0.1 with a free port, its own
// user-data and extensions folders, driven through Debian's Chromium by playwright-core.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { withDefaultFolders } from '@enrich/bulk/test-folders';
import { type BrowserContext, chromium, type FrameLocator, type Locator, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { type Person, spellings } from '../../../../packages/bulk/test/byte-scan';

export const APP_DIR = resolve(import.meta.dirname, '../..');
const REPO_DIR = resolve(APP_DIR, '../..');
export const CODE_SERVER = join(REPO_DIR, '.e2e/code-server/node_modules/.bin/code-server');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = join(APP_DIR, 'test-results');

const run = promisify(execFile);

export function vsixPath(): string {
  const { version } = JSON.parse(readFileSync(join(APP_DIR, 'package.json'), 'utf8'));
  return join(APP_DIR, `enrich-vscode-${version}.vsix`);
}

export interface CodeServer {
  readonly url: string;
  readonly root: string;
  readonly userDataDir: string;
  readonly browserProfileDir: string;
  readonly workspaceDir: string;
  readonly log: () => string;
  close(): Promise<void>;
}

/** What every test workbench starts with: no start-up editor, tips, update checks or telemetry. */
const QUIET_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off',
};

/**
 * Installs the .vsix into fresh folders (and any other .vsix a test brings, such as a test-only
 * extension that drives ours), writes User/settings.json (the quiet settings plus the test's own),
 * and starts code-server.
 */
export async function startCodeServer(
  testSettings: Record<string, unknown>,
  alsoInstall: readonly string[] = [],
): Promise<CodeServer> {
  const settings = { ...QUIET_SETTINGS, ...testSettings };
  if (!existsSync(CODE_SERVER)) {
    throw new Error(
      `code-server is not installed at ${CODE_SERVER}: run bash scripts/install-code-server.sh`,
    );
  }
  const root = mkdtempSync(join(tmpdir(), 'enrich-e2e-'));
  const userDataDir = join(root, 'user-data');
  const extensionsDir = join(root, 'extensions');
  const workspaceDir = join(root, 'workspace');
  const browserProfileDir = join(root, 'browser-profile');
  for (const dir of [join(userDataDir, 'User'), extensionsDir, workspaceDir, browserProfileDir]) {
    mkdirSync(dir, { recursive: true });
  }
  writeFileSync(join(userDataDir, 'User', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  // code-server reads and writes a config file and data under HOME unless told otherwise. So does
  // the extension host it starts: the user's data and cache folders are these XDG_* ones (not the
  // test process's ENRICH_DATA_DIR and ENRICH_CACHE_DIR), which forget.e2e.test.ts scans.
  const env = {
    ...withDefaultFolders(process.env),
    XDG_CONFIG_HOME: join(root, 'config'),
    XDG_DATA_HOME: join(root, 'data'),
    XDG_CACHE_HOME: join(root, 'cache'),
  };
  const common = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  for (const vsix of [vsixPath(), ...alsoInstall]) {
    await run(CODE_SERVER, [...common, '--install-extension', vsix], { env, timeout: 120_000 });
  }

  let output = '';
  const child: ChildProcess = spawn(
    CODE_SERVER,
    [
      ...common,
      '--auth',
      'none',
      '--bind-addr',
      '127.0.0.1:0',
      '--config',
      join(root, 'config.yaml'),
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-workspace-trust',
      workspaceDir,
    ],
    // Its own process group, so that closing it also ends the extension host and file watchers
    // it started, before the test reads the files they write.
    { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`code-server did not start:\n${output}`)), 60_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolveUrl(match[1]);
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => reject(new Error(`code-server exited with ${code}:\n${output}`)));
  });
  return {
    url,
    root,
    userDataDir,
    browserProfileDir,
    workspaceDir,
    log: () => output,
    async close() {
      const group = child.pid;
      if (group === undefined) return;
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-group, name);
        } catch {
          // The group has gone already.
        }
      };
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        signal('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      }
      // Whatever of the group is still there (helpers outlive the main process).
      signal('SIGKILL');
    },
  };
}

/** Opens the workbench in Chromium, with a profile folder kept for the storage scan. */
export async function openWorkbench(server: CodeServer): Promise<{ context: BrowserContext; page: Page }> {
  const context = await chromium.launchPersistentContext(server.browserProfileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1400, height: 1500 },
  });
  // Generous but bounded: a cold workbench on a 2-core machine.
  context.setDefaultTimeout(30_000);
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${server.url}/?folder=${encodeURIComponent(server.workspaceDir)}`);
  await page.locator('.monaco-workbench').waitFor({ timeout: 90_000 });
  await page.locator('.statusbar').waitFor({ timeout: 90_000 });
  // The palette lists the commands known when it opens: wait until the extension's contributions
  // are registered, which its view container's icon in the activity bar shows.
  await page
    .locator('.activitybar .action-item .action-label[aria-label^="Enrichment"]')
    .waitFor({ timeout: 90_000 });
  return { context, page };
}

// ---- driving the workbench ----

export const quickInput = (page: Page): Locator => page.locator('.quick-input-widget');
export const quickInputBox = (page: Page): Locator =>
  page.locator('.quick-input-widget .quick-input-box input');
export const quickInputMessage = (page: Page): Locator =>
  page.locator('.quick-input-widget .quick-input-message');

/**
 * Runs a command from the palette by its full title, as a user would. `opens`, for a command
 * whose first step is safe to repeat (an input box), is what it shows first: an Enter the
 * workbench dropped (seen once in CI: the palette closed and the command never ran) is then
 * retried instead of waited on for 30 s.
 */
export async function runCommand(page: Page, title: string, opens?: Locator): Promise<void> {
  // The palette lists the commands registered when it opened; if this one is missing (the
  // workbench was still starting), or the palette closed under us, open it again: a bounded
  // number of times.
  for (let attempt = 1; ; attempt++) {
    const patience = attempt < 3 ? 10_000 : 30_000;
    try {
      await page.keyboard.press('Escape');
      await quickInput(page).waitFor({ state: 'hidden', timeout: patience });
      await page.keyboard.press('F1');
      await quickInputBox(page).fill(`>${title}`, { timeout: patience });
      // The exact match is focused once the list has filtered; Enter runs it.
      const row = page.locator('.quick-input-list .monaco-list-row.focused', { hasText: title });
      await row.waitFor({ state: 'visible', timeout: patience });
      await page.keyboard.press('Enter');
      if (opens) await opens.waitFor({ state: 'visible', timeout: patience });
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
      console.warn(`runCommand: "${title}" not run on attempt ${attempt}; opening the palette again`);
    }
  }
}

/** Waits for a quick input whose title or prompt holds `text`, types `value` and presses Enter. */
export async function answerInput(
  page: Page,
  text: string | RegExp,
  value: string,
  enter = true,
): Promise<void> {
  await quickInput(page).filter({ hasText: text }).waitFor({ state: 'visible' });
  await quickInputBox(page).fill(value);
  if (enter) await page.keyboard.press('Enter');
}

/** A modal dialog (showInformationMessage with modal: true), drawn in the page by VS Code for the web. */
export function dialog(page: Page, text: string | RegExp): Locator {
  return page.locator('.monaco-dialog-box', { hasText: text });
}

export function notification(page: Page, text: string | RegExp): Locator {
  return page.locator('.notifications-toasts .notification-toast', { hasText: text });
}

/** Sets the API key through Enrichment: Set API Key, typed into its box as a user would. */
export async function setApiKey(page: Page, key: string): Promise<void> {
  await runCommand(
    page,
    'Enrichment: Set API Key',
    // Its prompt, which the palette's row for the command does not hold.
    quickInput(page).filter({ hasText: 'secret storage' }),
  );
  // password: the key is drawn as dots, never as text.
  await expect(quickInputBox(page).getAttribute('type')).resolves.toBe('password');
  await answerInput(page, 'Set API Key', key);
  await notification(page, 'API key saved').last().waitFor();
}

/** Right-clicks the file `name` in the explorer and chooses "Enrich File...". */
export async function enrichFromExplorer(page: Page, name: string): Promise<void> {
  // The label as it is, not as a pattern (a dot is a dot).
  const literal = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const row = page.locator('.explorer-folders-view .monaco-list-row', {
    has: page.locator('.label-name', { hasText: new RegExp(`^${literal}$`) }),
  });
  const item = page.locator('.context-view .action-label', { hasText: 'Enrich File...' });
  // Right after a reload the menu may open before the extension's contributions are registered:
  // close it and open it again, a bounded number of times.
  for (let attempt = 1; ; attempt++) {
    await row.click({ button: 'right' });
    try {
      await item.waitFor({ timeout: 10_000 });
      break;
    } catch (error) {
      if (attempt >= 3) throw error;
      await page.keyboard.press('Escape');
    }
  }
  // The menu takes its item on hover and Enter: a click right after it opens is ignored by VS Code
  // (so that releasing the right button does not pick an item).
  await item.hover();
  await page.keyboard.press('Enter');
  await item.waitFor({ state: 'hidden' });
}

/** The page of the webview opened last (a result view, a chart): VS Code draws a webview as an iframe inside an iframe. */
export function lastWebview(page: Page): FrameLocator {
  return page.frameLocator('iframe.webview.ready').last().frameLocator('#active-frame');
}

/** Waits until a finished call's progress toast has faded out, so that a picture shows the outcome only. */
export async function progressGone(page: Page): Promise<void> {
  await page
    .locator('.notification-toast', { hasText: 'Source: Enrichment' })
    .filter({ hasText: 'Cancel' })
    .waitFor({ state: 'hidden' });
}

/** The extension's activation time in ms, as VS Code's Developer: Show Running Extensions shows it (NaN when not found). */
export async function activationTime(page: Page): Promise<number> {
  await runCommand(page, 'Developer: Show Running Extensions');
  const row = page.locator('.monaco-list-row', { hasText: 'Enrichment' }).filter({ hasText: 'Activation' });
  await row.waitFor();
  return Number(/Activation:\s*(\d+)\s*ms/.exec((await row.textContent()) ?? '')?.[1]);
}

/** The text of the active editor, lines joined, as rendered (the whole document must fit). */
export async function activeEditorText(page: Page): Promise<string> {
  const lines = page.locator('.editor-group-container.active .monaco-editor .view-lines .view-line');
  await lines.first().waitFor();
  const rendered = await lines.evaluateAll((nodes) =>
    nodes
      .map((node) => ({
        top: Number.parseFloat((node as HTMLElement).style.top || '0'),
        text: node.textContent ?? '',
      }))
      .sort((a, b) => a.top - b.top)
      .map((line) => line.text),
  );
  return rendered.join('\n').replace(/\u00a0/g, ' ');
}

/**
 * Waits for a result of `operation` to be the active JSON document, holding `input` (a result's
 * tab is titled with the time, never the input), and returns its text.
 */
export async function activeResult(page: Page, operation: string, input: string): Promise<string> {
  await page.locator('.tab.active', { hasText: operation }).filter({ hasText: '.json' }).waitFor();
  for (let tries = 0; ; tries++) {
    const text = await activeEditorText(page);
    if (text.includes(input) || tries === 50) return text;
    await page.waitForTimeout(100);
  }
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}

/** For afterEach: a failed test leaves a picture of the workbench behind, for whoever reads CI's artifacts. */
export async function screenshotIfFailed(
  page: Page | undefined,
  task: { readonly name: string; readonly result?: { readonly state: string } },
): Promise<void> {
  if (task.result?.state !== 'fail' || !page || page.isClosed()) return;
  const name = `failed-${task.name.replace(/[^a-z0-9]+/gi, '-').slice(0, 60)}`;
  await screenshot(page, name).catch(() => {});
}

/** For afterAll: closes what a test file opened; code-server's folders stay only with KEEP_E2E set. */
export async function closeAll(
  context: BrowserContext | undefined,
  server: CodeServer | undefined,
  sandbox?: { close(): Promise<void> },
): Promise<void> {
  await context?.close().catch(() => {});
  await server?.close();
  await sandbox?.close();
  if (server && !process.env.KEEP_E2E) removeDir(server.root);
}

// ---- scanning files ----

/** Every file under `dir` whose bytes contain `needle`. */
export function filesContaining(dir: string, needle: string): string[] {
  const bytes = Buffer.from(needle, 'utf8');
  // Chromium's IndexedDB and some VS Code stores keep strings as UTF-16.
  const utf16 = Buffer.from(needle, 'utf16le');
  return listFiles(dir).filter((file) => {
    const content = readIfThere(file);
    return content !== undefined && (content.includes(bytes) || content.includes(utf16));
  });
}

/**
 * Every file (or file under the folders) of `paths` holding the person in one of the byte scan's
 * spellings, with the spelling: see spellingsIn.
 */
export function personScan(paths: readonly string[], person: Person): string[] {
  const hits: string[] = [];
  for (const path of paths) {
    const files = !existsSync(path) ? [] : statSync(path).isDirectory() ? listFiles(path) : [path];
    for (const file of files) {
      const content = readIfThere(file);
      if (content === undefined) continue;
      for (const found of spellingsIn(content, person)) hits.push(`${file}: ${found}`);
    }
  }
  return hits;
}

/**
 * The spellings of bulk's byte scan (byte-scan.ts: the digits, four formats, JSON-escaped...) that
 * `content` holds, as single bytes (UTF-8, Latin-1) or as UTF-16, which Chromium's session files
 * and IndexedDB use: read as the bytes with every NUL taken out.
 */
export function spellingsIn(content: Buffer, person: Person): string[] {
  const texts = [content.toString('latin1'), Buffer.from(content.filter((b) => b !== 0)).toString('latin1')];
  return spellings(person)
    .filter((pattern) => texts.some((text) => pattern.test(text)))
    .map((pattern) => pattern.source);
}

// Chromium and VS Code remove lock and journal files as they shut down.
function readIfThere(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listFiles(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
