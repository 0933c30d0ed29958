// The SDK in a browser: the published bundle (packages/core/dist/sdk, what the tarball ships) is
// loaded as an ES module by a page in headless Chromium (Debian's, as the Sheets sidebar test uses),
// whose fetch calls the sandbox. One origin serves the page, the bundle and the sandbox, so the
// browser's own fetch, AbortSignal and timers are used without CORS in the way.
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { createSandbox, DEMO_KEY } from '@enrich/sandbox';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';

const SDK = join(import.meta.dirname, '..', '..', 'core', 'dist', 'sdk');
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const sandbox = createSandbox();

const PAGE = `<!doctype html><meta charset="utf-8"><title>sdk</title>
<script type="module">
  import { createClient } from '/sdk/index.js';
  const client = createClient({ apiKey: '${DEMO_KEY}', baseUrl: location.origin, baseUrlV3: location.origin });
  const found = await client.phoneLookup({ Phone: '(555) 010-2030' });
  const invalid = await client.phoneLookup({ Phone: '123' });
  let aborted = 'not rejected';
  try {
    await client.emailVerify({ Email: 'jane.doe@example.com' }, { signal: AbortSignal.abort() });
  } catch (error) {
    aborted = error.name;
  }
  window.__result = { found, invalid, aborted };
</script>`;

let server: Server;
let browser: Browser;
let origin = '';

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE);
    // Only the API's paths reach the sandbox (the browser also asks for /favicon.ico).
    if (!path.startsWith('/v2/') && !path.startsWith('/v3/') && !path.startsWith('/sdk/'))
      return void res.writeHead(404).end();
    if (path.startsWith('/sdk/')) {
      const file = normalize(join(SDK, path.slice('/sdk/'.length)));
      if (!file.startsWith(SDK) || extname(file) !== '.js') return void res.writeHead(404).end();
      return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(readFileSync(file));
    }
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === 'string') headers[name] = value;
    const answer = sandbox.handle({
      method: req.method ?? 'GET',
      path,
      headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(answer.status, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
    ],
  });
});

afterAll(async () => {
  await browser?.close();
  server?.close();
});

it('createClient runs in Chromium: a typed record, an invalid input sent nowhere, an abort', async () => {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(origin);
  await page.waitForFunction(
    () => (window as unknown as { __result?: unknown }).__result !== undefined,
    null,
    {
      timeout: 30_000,
    },
  );
  const result = (await page.evaluate(() => (window as unknown as { __result: unknown }).__result)) as {
    found: { kind: string; record: { Name: { FName: string }; Address: { Deliverable: unknown } } };
    invalid: { kind: string; error: { code: string } };
    aborted: string;
  };
  expect(errors).toEqual([]);
  expect(result.found.kind).toBe('record');
  expect(result.found.record.Name.FName).toMatch(/^[A-Z]+$/);
  expect(typeof result.found.record.Address.Deliverable).toBe('boolean');
  expect(result.invalid).toMatchObject({ kind: 'error', error: { code: 'invalid-input' } });
  expect(result.aborted).toBe('AbortError');
  // One request reached the sandbox: the invalid and the aborted calls sent nothing.
  expect(sandbox.requests()).toBe(1);
  await page.close();
});
