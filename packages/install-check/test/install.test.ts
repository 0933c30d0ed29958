// The packages as a user gets them: each tarball is packed from the workspace (turbo has built it),
// installed with npm outside this repository (an empty temp prefix, --offline, its own npm cache,
// so nothing can come from the workspace's node_modules or the network), and run from there.
//   a. the CLI: `enrich --version`, a one-off call and a bulk CSV run with --sandbox
//   b. the sandbox: `enrich-sandbox --port N` starts and answers a Phone Lookup
//   c. the SDK in a fresh strict NodeNext TypeScript project: typechecks (with @ts-expect-error
//      lines that must be errors) and runs against the installed sandbox
//   d. the MCP server: `enrich-mcp --sandbox` starts and answers a tool call over stdio (JSON-RPC)
//   e. the warehouse functions: `enrich-functions` starts against the installed sandbox and answers a
//      BigQuery remote function call; its PostgreSQL driver is in the bundle
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '..', '..', '..');
const work = mkdtempSync(join(tmpdir(), 'enrich-install-'));
const tarballs = join(work, 'tarballs');
const npmCache = join(work, 'npm-cache');
// PATH for installed commands: the install prefix and node itself, nothing of the workspace.
const nodeDir = dirname(process.execPath);
const children: ChildProcess[] = [];

function versionOf(pkg: string): string {
  return JSON.parse(readFileSync(join(REPO, 'packages', pkg, 'package.json'), 'utf8')).version;
}

function pack(pkg: string): string {
  execFileSync('pnpm', ['pack', '--pack-destination', tarballs], {
    cwd: join(REPO, 'packages', pkg),
    stdio: 'pipe',
  });
  const file = readdirSync(tarballs).find((f) => f.startsWith(`enrich-${pkg}-`) && f.endsWith('.tgz'));
  if (!file) throw new Error(`pnpm pack wrote no tarball for ${pkg}`);
  return join(tarballs, file);
}

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', [...args, '--offline', '--cache', npmCache, '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
    env: { PATH: process.env.PATH ?? '', HOME: work },
  });
}

/** `npm install -g --offline` of a tarball into a new, empty prefix; returns the prefix's bin dir. */
function installGlobally(tarball: string, name: string): string {
  const prefix = join(work, `prefix-${name}`);
  mkdirSync(prefix);
  npm(['install', '-g', '--prefix', prefix, tarball], work);
  return join(prefix, 'bin');
}

function run(bin: string, command: string, args: string[], cwd: string) {
  return execFileSync(join(bin, command), args, {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
    env: { PATH: `${bin}:${nodeDir}:/usr/bin:/bin`, HOME: work },
  });
}

function manifestIn(tarball: string): Record<string, unknown> {
  return JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  return port;
}

let cliTarball = '';
let sandboxTarball = '';
let coreTarball = '';
let mcpTarball = '';
let functionsTarball = '';
let sandboxUrl = '';

beforeAll(async () => {
  mkdirSync(tarballs);
  cliTarball = pack('cli');
  sandboxTarball = pack('sandbox');
  coreTarball = pack('core');
  mcpTarball = pack('mcp');
  functionsTarball = pack('functions');

  // (b) is also what (c) runs against: start the installed sandbox once.
  const bin = installGlobally(sandboxTarball, 'sandbox');
  const port = await freePort();
  const child = spawn(join(bin, 'enrich-sandbox'), ['--port', String(port)], {
    cwd: work,
    env: { PATH: `${bin}:${nodeDir}:/usr/bin:/bin`, HOME: work },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let printed = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk) => {
      printed += String(chunk);
      if (printed.includes('listening on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`enrich-sandbox exited (${code}): ${printed}`)));
  });
  sandboxUrl = /listening on (\S+)/.exec(printed)?.[1] ?? '';
});

afterAll(() => {
  for (const child of children) child.kill();
  rmSync(work, { recursive: true, force: true });
});

describe('the CLI tarball, installed globally with npm --offline', () => {
  it('has no runtime dependencies', () => {
    const manifest = manifestIn(cliTarball);
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.bin).toEqual({ enrich: './dist/enrich.mjs' });
  });

  it('enrich --version, --help, a one-off call, a dry run and a bulk CSV run with --sandbox', () => {
    const bin = installGlobally(cliTarball, 'cli');
    const cwd = mkdtempSync(join(work, 'cli-run-'));
    expect(run(bin, 'enrich', ['--version'], cwd).trim()).toBe(versionOf('cli'));

    const oneOff = JSON.parse(
      run(
        bin,
        'enrich',
        ['tcpa-verify', '--sandbox', '--phone', '5550102030', '--last-name', 'Doe', '--json'],
        cwd,
      ),
    );
    expect(JSON.stringify(oneOff)).toMatch(/verification_code/);

    expect(run(bin, 'enrich', ['--help'], cwd)).toContain('phone-lookup');
    expect(run(bin, 'enrich', ['phone-lookup', '--help'], cwd)).toContain('Phone');

    writeFileSync(join(cwd, 'leads.csv'), 'name,phone\nJane,(555) 010-2030\nOmar,5550102031\nBad,123\n');
    const plan = JSON.parse(
      run(bin, 'enrich', ['phone-lookup', '--in', 'leads.csv', '--dry-run', '--json'], cwd),
    );
    expect(plan).toMatchObject({ rows: 3, invalid: 1, distinct: 2 });
    run(
      bin,
      'enrich',
      ['phone-lookup', '--sandbox', '--in', 'leads.csv', '--out', 'out.csv', '--quiet'],
      cwd,
    );
    const lines = readFileSync(join(cwd, 'out.csv'), 'utf8').trim().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^name,phone,FName,.*,status$/);
    expect(lines.slice(1).map((line) => line.split(',').at(-1))).toEqual([
      'ok',
      'ok',
      'invalid: Phone must be 10 digits; got 3',
    ]);
  });
});

describe('the sandbox tarball, installed globally', () => {
  it('has no runtime dependencies', () => {
    expect(manifestIn(sandboxTarball).dependencies ?? {}).toEqual({});
  });

  it('enrich-sandbox --port N answers a Phone Lookup', async () => {
    expect(sandboxUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const response = await fetch(`${sandboxUrl}/v3/lookup/phone`, {
      method: 'POST',
      headers: { 'x-api-key': 'sandbox-demo-key', 'content-type': 'application/json' },
      body: JSON.stringify({ Phone: '5550102030' }),
    });
    expect(response.status).toBe(200);
    const record = (await response.json()) as { Name: { FName: string }; Address: { Deliverable: boolean } };
    expect(record.Name.FName).toMatch(/^[A-Z]+$/);
    expect(typeof record.Address.Deliverable).toBe('boolean');
  });
});

describe('the SDK (and the sandbox as a library) in a fresh TypeScript project (strict, NodeNext)', () => {
  it('has no runtime dependencies and ships ESM with declarations', () => {
    const manifest = manifestIn(coreTarball);
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.exports).toMatchObject({
      '.': { types: './dist/sdk/types/sdk.d.ts', import: './dist/sdk/index.js' },
    });
  });

  it('typechecks a file using createClient (with @ts-expect-error lines) and runs it against the sandbox', () => {
    const project = join(work, 'sdk-project');
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(
      join(project, 'package.json'),
      JSON.stringify({ name: 'sdk-user', version: '1.0.0', private: true, type: 'module' }),
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          // fetch, Response and AbortSignal come from the DOM library here (or from @types/node).
          lib: ['ES2022', 'DOM'],
          types: [],
          // Our declarations are checked too, as a strict user project checks them.
          skipLibCheck: false,
          outDir: 'out',
        },
        include: ['src'],
      }),
    );
    // The sandbox's URL is written into the file, so it needs no @types/node for process.env.
    writeFileSync(
      join(project, 'src', 'main.ts'),
      `import { createClient } from '@enrich/core';

const client = createClient({ apiKey: 'sandbox-demo-key', baseUrl: '${sandboxUrl}', baseUrlV3: '${sandboxUrl}' });

const found = await client.phoneLookup({ Phone: '(555) 010-2030' });
const first: string = found.kind === 'record' ? found.record.Name.FName : '';
const deliverable: boolean | null = found.kind === 'record' ? found.record.Address.Deliverable : null;
const verified = await client.tcpaVerify({ phone: '5550102030', last_name: 'Doe' });
const invalid = await client.emailVerify({ Email: 'not an address' });

// @ts-expect-error a field Phone Lookup does not have
await client.phoneLookup({ Fone: '5550102030' });
// @ts-expect-error a number, not a string
await client.phoneLookup({ Phone: 5550102030 });
// @ts-expect-error another operation's field
await client.phoneLookup({ Email: 'jane@example.com' });

console.log(JSON.stringify({ kind: found.kind, first, deliverable, tcpa: verified.kind, invalid }));
`,
    );
    // The README's example, as it stands, must typecheck too (it reads process.env: declared here,
    // since the project has no @types/node).
    const readme = readFileSync(join(REPO, 'packages', 'core', 'README.md'), 'utf8');
    const example = /## The SDK\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toContain('createClient');
    writeFileSync(join(project, 'src', 'readme-example.ts'), example ?? '');
    writeFileSync(
      join(project, 'src', 'env.d.ts'),
      'declare const process: { readonly env: Readonly<Record<string, string | undefined>> };\n',
    );
    // The sandbox as a library in the same project, as a user's test suite would start it.
    writeFileSync(
      join(project, 'src', 'with-sandbox.ts'),
      `import { createClient } from '@enrich/core';
import { DEMO_KEY, startSandboxServer } from '@enrich/sandbox';

const server = await startSandboxServer({ port: 0 });
const client = createClient({ apiKey: DEMO_KEY, baseUrl: server.url, baseUrlV3: server.url });
const verified = await client.emailVerify({ Email: 'jane.doe@example.com' });
const result: string = verified.kind === 'record' ? verified.record.Result : verified.kind;
console.log(JSON.stringify({ result, transactions: server.sandbox.transactions() }));
await server.close();
`,
    );
    npm(['install', coreTarball, sandboxTarball], project);
    // Only the SDK: it has no dependencies to bring along.
    expect(readdirSync(join(project, 'node_modules')).filter((f) => !f.startsWith('.'))).toEqual(['@enrich']);

    // The workspace's TypeScript compiler, run on the fresh project: it resolves @enrich/core from
    // the project's own node_modules (the installed tarball), not from this workspace.
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = (() => {
      try {
        return execFileSync(process.execPath, [tsc, '-p', project], { encoding: 'utf8', stdio: 'pipe' });
      } catch (error) {
        throw new Error(`tsc failed:\n${(error as { stdout?: string }).stdout}`);
      }
    })();
    expect(compiled).toBe('');

    const printed = execFileSync(process.execPath, [join(project, 'out', 'main.js')], {
      cwd: project,
      encoding: 'utf8',
    });
    const withSandbox = JSON.parse(
      execFileSync(process.execPath, [join(project, 'out', 'with-sandbox.js')], {
        cwd: project,
        encoding: 'utf8',
      }),
    );
    expect(withSandbox.transactions).toBe(1);
    expect(withSandbox.result).toMatch(/^[A-Z]+$/);
    const result = JSON.parse(printed);
    expect(result).toMatchObject({ kind: 'record', tcpa: 'record' });
    expect(result.first).toMatch(/^[A-Z]+$/);
    expect(typeof result.deliverable).toBe('boolean');
    expect(result.invalid).toEqual({
      kind: 'error',
      error: { code: 'invalid-input', message: 'Email must have exactly one @; got "not an address"' },
    });
  });

  it('a @ts-expect-error line that is not an error fails the typecheck (the check can fail)', () => {
    const project = join(work, 'sdk-project');
    writeFileSync(
      join(project, 'src', 'loose.ts'),
      `import { createClient } from '@enrich/core';
const client = createClient({ apiKey: 'k' });
// @ts-expect-error (but this is a valid input, so tsc must complain that the directive is unused)
void client.phoneLookup({ Phone: '5550102030' });
`,
    );
    const tsc = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', project, '--noEmit'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    expect(output).toMatch(/TS2578: Unused '@ts-expect-error' directive/);
    rmSync(join(project, 'src', 'loose.ts'));
  });
});

describe('the MCP server tarball, installed globally', () => {
  it('has no runtime dependencies', () => {
    const manifest = manifestIn(mcpTarball);
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.bin).toEqual({ 'enrich-mcp': './dist/enrich-mcp.mjs' });
  });

  it('enrich-mcp --sandbox starts and answers a tool call over stdio', async () => {
    const bin = installGlobally(mcpTarball, 'mcp');
    expect(run(bin, 'enrich-mcp', ['--version'], work).trim()).toBe(versionOf('mcp'));
    const child = spawn(join(bin, 'enrich-mcp'), ['--sandbox'], {
      cwd: work,
      env: { PATH: `${bin}:${nodeDir}:/usr/bin:/bin`, HOME: work, ENRICH_CACHE_DIR: join(work, 'mcp-cache') },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.push(child);
    // Newline-delimited JSON-RPC, as an MCP client speaks it over stdio.
    const answers = new Map<number, { result?: Record<string, unknown> }>();
    let buffered = '';
    child.stdout?.on('data', (chunk) => {
      buffered += String(chunk);
      for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
        const message = JSON.parse(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        answers.set(message.id, message);
      }
    });
    const send = (message: Record<string, unknown>) =>
      child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    const answer = async (id: number) => {
      for (let waited = 0; !answers.has(id); waited += 50) {
        if (waited > 30_000) throw new Error(`no answer to request ${id}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return answers.get(id)?.result ?? {};
    };
    send({
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'install-check', version: '1' },
      },
    });
    expect(await answer(1)).toMatchObject({ serverInfo: { name: 'enrich-mcp', version: versionOf('mcp') } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
    const { tools } = (await answer(2)) as { tools: { name: string }[] };
    expect(tools.map((t) => t.name)).toContain('phone_lookup');
    send({
      id: 3,
      method: 'tools/call',
      params: { name: 'phone_lookup', arguments: { Phone: '(555) 010-2030' } },
    });
    const result = (await answer(3)) as { isError?: boolean; structuredContent: { Name: { FName: string } } };
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.Name.FName).toMatch(/^[A-Z]+$/);
    child.stdin?.end();
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});

describe('the warehouse functions tarball, installed globally', () => {
  it('has no runtime dependencies', () => {
    const manifest = manifestIn(functionsTarball);
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.bin).toEqual({ 'enrich-functions': './dist/enrich-functions.mjs' });
  });

  it('enrich-functions answers a BigQuery call against the installed sandbox', async () => {
    const bin = installGlobally(functionsTarball, 'functions');
    expect(run(bin, 'enrich-functions', ['--version'], work).trim()).toBe(versionOf('functions'));
    const token = 'install-check-token-0123456789';
    const env = {
      PATH: `${bin}:${nodeDir}:/usr/bin:/bin`,
      HOME: work,
      ENRICH_CACHE_DIR: join(work, 'functions-cache'),
      ENRICH_API_KEY: 'sandbox-demo-key',
      ENRICH_BASE_URL: sandboxUrl,
      ENRICH_BASE_URL_V3: sandboxUrl,
      ENRICH_FUNCTIONS_TOKEN: token,
    };
    // The driver is bundled: a store that is not there is refused as unreachable, not as a missing module.
    const refused = spawn(
      join(bin, 'enrich-functions'),
      ['--port', '0', '--store', 'postgres://enrich:pw@127.0.0.1:1/enrich'],
      { cwd: work, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let refusal = '';
    refused.stderr?.on('data', (chunk) => {
      refusal += String(chunk);
    });
    const [refusedCode] = await once(refused, 'exit');
    expect(refusedCode).toBe(1);
    expect(refusal).toMatch(/the answer store could not be opened/);
    expect(refusal).not.toMatch(/Cannot find (module|package)|pw@/);
    const child = spawn(join(bin, 'enrich-functions'), ['--port', '0', '--host', '127.0.0.1'], {
      cwd: work,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let printed = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on('data', (chunk) => {
        printed += String(chunk);
        const match = /listening on (http:\/\/\S+)/.exec(printed);
        if (match?.[1]) resolve(match[1]);
      });
      child.once('exit', (code) => reject(new Error(`enrich-functions exited (${code}): ${printed}`)));
    });
    const response = await fetch(`${url}/bigquery`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        requestId: '124ab1c',
        caller: '//bigquery.googleapis.com/projects/myproject/jobs/myproject:US.bquxjob_5b4c112c_17961fafeaf',
        sessionUser: 'test-user@test-company.com',
        userDefinedContext: { operation: 'phone-lookup' },
        calls: [['(555) 010-2030'], [null]],
      }),
    });
    expect(response.status).toBe(200);
    const { replies } = (await response.json()) as {
      replies: { status: string; Name?: { FName: string } }[];
    };
    expect(replies[0]?.status).toBe('ok');
    expect(replies[0]?.Name?.FName).toMatch(/^[A-Z]+$/);
    expect(replies[1]?.status).toMatch(/^invalid: blank row/);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
