// Core must run where Apps Script runs: no Node, no DOM, no fetch, timers, URL, TextEncoder,
// structuredClone, Buffer or process. This builds the bundle and runs it in a bare node:vm context,
// where none of those exist, then checks the bundle's text mentions none of them.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { beforeAll, describe, expect, it } from 'vitest';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const bundlePath = join(packageDir, 'dist', 'core.global.js');
let source = '';
let context: vm.Context;

/** Runs code in the bare context and brings its JSON result back into this realm. */
function inVm(code: string): unknown {
  return JSON.parse(vm.runInContext(`JSON.stringify((() => { ${code} })())`, context) as string);
}

/** Whether dist/ is missing or older than the sources it is built from. */
function bundleIsStale(): boolean {
  if (!existsSync(bundlePath)) return true;
  const built = statSync(bundlePath).mtimeMs;
  const sources = [
    join(packageDir, 'scripts', 'bundle.mjs'),
    ...readdirSync(join(packageDir, 'src')).map((f) => join(packageDir, 'src', f)),
  ];
  return sources.some((f) => statSync(f).mtimeMs > built);
}

beforeAll(() => {
  // turbo builds before testing; a direct `vitest run` after editing src/ rebuilds here, so the
  // test never passes on a stale bundle.
  if (bundleIsStale())
    execFileSync(process.execPath, ['scripts/bundle.mjs'], { cwd: packageDir, stdio: 'pipe' });
  source = readFileSync(bundlePath, 'utf8');
  context = vm.createContext({});
  vm.runInContext(source, context, { filename: 'core.global.js' });
});

describe('bundled core in a bare node:vm context', () => {
  it('the context really is bare', () => {
    expect(
      inVm(
        "return ['fetch','setTimeout','setInterval','URL','URLSearchParams','TextEncoder','structuredClone','Buffer','process','require','module','globalThis.window'].map((n) => { try { return typeof eval(n); } catch { return 'undefined'; } });",
      ),
    ).toEqual(Array(12).fill('undefined'));
  });

  it('defines the EnrichCore global with the nine operations', () => {
    expect(inVm('return EnrichCore.OPERATIONS.map((o) => o.id);')).toEqual([
      'auto-append',
      'demographic-append',
      'email-append',
      'phone-append',
      'email-lookup',
      'phone-lookup',
      'email-verify',
      'tcpa-verify',
      'id-verify',
    ]);
  });

  it('validates there, normalising and refusing', () => {
    expect(
      inVm(`
        const op = EnrichCore.findOperation('Demographic Append');
        return [
          EnrichCore.validate(op, { FName: ' Jane ', LName: 'Doe', Address1: '12 Main St', Zip: 2134, State: 'ma', City: 'Boston', Phone: '(555) 010-2030' }),
          EnrichCore.validate(EnrichCore.findOperation('phone-lookup'), { Phone: '555010203' }),
          EnrichCore.validate(op, { FName: 'x'.repeat(16) }),
        ];`),
    ).toEqual([
      {
        ok: true,
        input: {
          FName: 'Jane',
          LName: 'Doe',
          Address1: '12 Main St',
          Zip: '02134',
          City: 'Boston',
          State: 'MA',
          Phone: '5550102030',
        },
      },
      {
        ok: false,
        issues: [{ field: 'Phone', message: 'Phone must be 10 digits; got 9' }],
        message: 'Phone must be 10 digits; got 9',
      },
      {
        ok: false,
        issues: [{ field: 'FName', message: 'FName must be at most 15 characters; got 16' }],
        message: 'FName must be at most 15 characters; got 16',
      },
    ]);
  });

  it('builds, redacts and reads there', () => {
    const result = inVm(`
      const op = EnrichCore.findOperation('tcpa-verify');
      const checked = EnrichCore.validate(op, { phone: '+1 555 010 2030', last_name: 'Doe' });
      const settings = { apiKey: 'vm-secret-key-123', baseUrl: 'http://127.0.0.1:8080', baseUrlV3: 'https://v3.example.test' };
      const built = EnrichCore.buildRequest(op, checked.input, settings);
      const refused = EnrichCore.buildRequest(op, checked.input, { ...settings, baseUrl: 'http://example.com' });
      const read = EnrichCore.readResponse(op, { status: 200, headers: {}, body: '{"verification_code":"A1","phone_type":"W"}' });
      const retry = EnrichCore.decideRetry(1, 0, EnrichCore.callError('server', 'x'), EnrichCore.DEFAULT_RETRY_POLICY, () => 0);
      return {
        built,
        refused: refused.ok,
        redacted: EnrichCore.redactRequest(built.request),
        curl: EnrichCore.toCurl(built.request),
        key: EnrichCore.requestKey(op, checked.input),
        row: EnrichCore.flattenRecord(op, read.record),
        retry,
        openapiPaths: Object.keys(EnrichCore.buildOpenApi().paths).length,
      };`) as Record<string, unknown>;
    expect(result.built).toEqual({
      ok: true,
      request: {
        method: 'POST',
        url: 'http://127.0.0.1:8080/v2/verify/tcpa',
        headers: { 'x-api-key': 'vm-secret-key-123', 'Content-Type': 'application/json' },
        body: '{"phone":"5550102030","last_name":"Doe"}',
      },
    });
    expect(result.refused).toBe(false);
    expect(JSON.stringify(result.redacted)).not.toContain('vm-secret-key-123');
    expect(result.curl).not.toContain('vm-secret-key-123');
    expect(result.key).toBe('tcpa-verify:[["phone","5550102030"],["last_name","Doe"]]');
    expect(result.row).toEqual(['A1', 'W']);
    expect(result.retry).toEqual({ retry: true, delayMs: 250 });
    expect(result.openapiPaths).toBe(9);
  });

  it('runs callOperation there with a transport and clock passed in', async () => {
    const run = vm.runInContext(
      `(async () => {
        let now = 0;
        const answers = [{ status: 503, headers: {}, body: '' }, { status: 200, headers: {}, body: '{"Email":"a@b.co","Result":"ok"}' }];
        const report = await EnrichCore.callOperation(EnrichCore.findOperation('email-verify'), { Email: 'a@b.co' }, {
          settings: { apiKey: 'k', baseUrl: 'https://v2.example.test', baseUrlV3: 'https://v3.example.test' },
          transport: async () => answers.shift(),
          sleep: async (ms) => { now += ms; },
          now: () => now,
          random: () => 0,
        });
        return JSON.stringify({ outcome: report.outcome, attempts: report.attempts, now });
      })()`,
      context,
    ) as Promise<string>;
    expect(JSON.parse(await run)).toEqual({
      outcome: {
        kind: 'record',
        status: 200,
        record: { Email: 'a@b.co', Result: 'ok' },
        extra: {},
        mismatches: [],
        raw: '{"Email":"a@b.co","Result":"ok"}',
      },
      attempts: 2,
      now: 250,
    });
  });

  it('reads tolerantly, checks and scrubs keys, plans key checks and parses dated Retry-After there', () => {
    const result = inVm(`
      const op = EnrichCore.findOperation('phone-append');
      const read = EnrichCore.readResponse(op, { status: 200, headers: {}, body: '{"phoneType":"W","DID":"1","PHV":"x"}' });
      const unreadable = EnrichCore.readResponse(op, { status: 200, headers: {}, body: '<html>' });
      const redirect = EnrichCore.readResponse(op, { status: 307, headers: { location: 'https://evil.test/x' }, body: '' });
      const settings = { apiKey: 'vm-secret-key-123', baseUrl: 'https://v2.example.test', baseUrlV3: 'https://v3.example.test' };
      const plan = EnrichCore.planKeyCheck(settings);
      return {
        phoneType: read.record.PhoneType,
        extra: read.extra,
        mismatches: read.mismatches.map((m) => m.problem),
        unreadable: unreadable.kind,
        paid: EnrichCore.isPaid(unreadable),
        redirect: redirect.error.code,
        keyProblem: EnrichCore.checkApiKey('abc\\ndef') !== undefined,
        scrubbed: EnrichCore.createScrubber(['vm-secret-key-123'])('x vm-secret-key-123 ' + encodeURIComponent('vm-secret-key-123')),
        planned: plan.checks.map((c) => c.request.url),
        verdict: EnrichCore.readKeyCheck('https://v2.example.test', { status: 401, headers: {}, body: '' }).verdict,
        retryAfter: EnrichCore.parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', Date.UTC(1994, 10, 6, 8, 49, 30)),
        normalised: EnrichCore.normaliseValue('text', '\u200bJane\u0000'),
      };`);
    expect(result).toEqual({
      phoneType: 'W',
      extra: { DID: '1' },
      mismatches: ['case', 'type', 'unknown'],
      unreadable: 'unreadable',
      paid: true,
      redirect: 'redirect',
      keyProblem: true,
      scrubbed: 'x [key hidden] [key hidden]',
      planned: ['https://v2.example.test/v2/verify/email', 'https://v3.example.test/v3/lookup/phone'],
      verdict: 'refused',
      retryAfter: 7000,
      normalised: { value: 'Jane' },
    });
  });

  it('writes, reads and totals the spend ledger there (the Sheets add-on keeps one too)', () => {
    const result = inVm(`
      const line = EnrichCore.ledgerLine({ v: 1, at: '2026-11-30T23:59:59.000Z', operation: 'email-verify', origin: EnrichCore.ledgerOrigin('https://API.example.test:443/v2'), client: 'sheets', run: 'r1', count: 4 });
      const read = EnrichCore.readLedger(line + '{"v":1,"at":"2026-1' + '\\n' + line);
      return { skipped: read.skipped, rows: EnrichCore.spendTotals(read.entries, { by: 'month', since: '2026-11' }) };`);
    expect(result).toEqual({
      skipped: 1,
      rows: [
        { period: '2026-11', origin: 'https://api.example.test', operation: 'email-verify', transactions: 8 },
      ],
    });
  });

  it.each([
    ['fetch', /\bfetch\b/],
    ['setTimeout', /\bsetTimeout\b/],
    ['URL', /\bnew URL\b|\bURL\(|\bURLSearchParams\b/],
    ['TextEncoder', /\bTextEncoder\b/],
    ['structuredClone', /\bstructuredClone\b/],
    ['Buffer', /\bBuffer\b/],
    ['process', /\bprocess\b/],
    ['require(', /\brequire\(/],
  ])('the bundle source mentions no %s', (_, pattern) => {
    expect(source.length).toBeGreaterThan(10_000);
    expect(source).not.toMatch(pattern);
  });
});
