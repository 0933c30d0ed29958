// The built sidebar (dist/sidebar.html, as the server hands it to the browser) in real headless
// Chromium, with a google.script.run shim wired to the fake runtime: shared by the browser tests.
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { DIST, type Runtime, type User } from './runtime/index.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ORIGIN = 'https://sidebar.test';

/** Where screenshots go (git-ignored). */
export const RESULTS = join(DIST, '..', 'test-results');

/** Waits for the page (real time: Chromium and the runtime share a busy CI machine). */
export const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 50 });

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

// google.script.run in the page: asynchronous, handlers chained, at most 10 calls in flight (counted).
const SHIM = `(() => {
  const state = { inFlight: 0, maxInFlight: 0, calls: [] };
  window.__gasState = state;
  const runner = (success, failure) => new Proxy({}, {
    get(_, name) {
      if (name === 'withSuccessHandler') return (f) => runner(f, failure);
      if (name === 'withFailureHandler') return (f) => runner(success, f);
      if (name === 'withUserObject') return () => runner(success, failure);
      return (...args) => {
        state.inFlight++;
        state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
        state.calls.push(String(name));
        window.__gasRun(String(name), args).then((answer) => {
          state.inFlight--;
          if (answer && 'error' in answer) { if (failure) failure(new Error(answer.error)); }
          else if (success) success(answer.value);
        });
      };
    },
  });
  window.google = { script: { run: runner(null, null), host: { close() {} } } };
})();`;

/** Holds one runChunk call (the `holdAt`-th) until `gate` resolves, so that Stop is clicked mid-run. */
export interface Bridge {
  chunkCalls: number;
  holdAt: number | null;
  gate: Promise<void>;
}

export const NO_HOLD = (): Bridge => ({ chunkCalls: 0, holdAt: null, gate: Promise.resolve() });

/** Opens the sidebar as the menu item `entry` does (showSidebar; showForget for "Forget a person…"). */
export async function openSidebar(
  browser: Browser,
  rt: Runtime,
  user: User,
  bridge: Bridge,
  entry = 'showSidebar',
): Promise<Page> {
  rt.run(user, entry);
  const html = rt.lastSidebar(user) as string;
  const page = await browser.newPage({ viewport: { width: 300, height: 1000 } });
  // The page may load nothing but itself: Google's stylesheet is unreachable here, and not needed.
  await page.route('**/*', (route) =>
    route.request().url() === `${ORIGIN}/`
      ? route.fulfill({ contentType: 'text/html', body: html })
      : route.abort(),
  );
  await page.exposeFunction('__gasRun', async (name: string, args: unknown[]) => {
    if (name === 'runChunk' && ++bridge.chunkCalls === bridge.holdAt) await bridge.gate;
    try {
      return { value: rt.scriptRun(user, name, ...args) };
    } catch (error) {
      return { error: (error as Error).message };
    }
  });
  await page.addInitScript(SHIM);
  await page.goto(`${ORIGIN}/`);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}
