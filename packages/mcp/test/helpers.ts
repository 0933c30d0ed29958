// Drives the built server (dist/enrich-mcp.mjs, which turbo builds before the tests) with the MCP
// SDK's own Client over StdioClientTransport, as an assistant would, and keeps everything the
// server printed (stdout's JSON-RPC messages, stderr) for the key scan.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll } from 'vitest';

export const BIN = join(import.meta.dirname, '..', 'dist', 'enrich-mcp.mjs');

/** Everything any server printed or returned in this test file. */
export const printed: string[] = [];

// Every test file evaluates this module afresh, so this hook is the calling file's: the folders its
// tests made are removed when the file is done. Outside vitest (the hostile
// report runs the scenarios as a script) there is no file to end: they go when the process exits.
const made: string[] = [];
const removeMade = () => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
};
if (process.env.VITEST) afterAll(removeMade);
else process.on('exit', removeMade);

/** A fresh folder, removed when the calling test file is done. */
export function tempDir(prefix = 'enrich-mcp-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

export interface Session {
  readonly client: Client;
  readonly stderr: () => string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
  /** The server process's id (to send it a signal). */
  pid(): number | null;
  /** The server process's exit code (or the signal that ended it), once it has exited. */
  exited(): Promise<number | string | null>;
}

export interface StartOptions {
  readonly args?: readonly string[];
  readonly env: Record<string, string>;
  /** The server's working folder: the folder its file tools may use when no roots are declared. */
  readonly cwd?: string;
  /** Declare the roots capability and answer roots/list with these folders. */
  readonly roots?: readonly string[];
  /** Declare the elicitation capability and answer each elicitation with this. */
  readonly elicit?: (message: string) => {
    action: 'accept' | 'decline' | 'cancel';
    content?: Record<string, unknown>;
  };
}

export async function startSession(options: StartOptions): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, ...(options.args ?? [])],
    // Only what the server needs: no key unless the test gives one.
    env: {
      PATH: `${dirname(process.execPath)}:/usr/bin:/bin`,
      HOME: tempDir('enrich-mcp-home-'),
      // The spend ledger too is the test's own (a test that reads it names its own).
      ENRICH_LEDGER: join(tempDir('enrich-mcp-ledger-'), 'ledger.jsonl'),
      ...options.env,
    },
    stderr: 'pipe',
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
  let errText = '';
  transport.stderr?.on('data', (chunk) => {
    errText += String(chunk);
    printed.push(String(chunk));
  });
  const client = new Client(
    { name: 'enrich-mcp-test', version: '1.0.0' },
    {
      capabilities: {
        ...(options.elicit ? { elicitation: {} } : {}),
        ...(options.roots ? { roots: { listChanged: true } } : {}),
      },
    },
  );
  if (options.roots) {
    const { ListRootsRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const roots = options.roots.map((folder) => ({ uri: pathToFileURL(folder).href, name: folder }));
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots }));
  }
  if (options.elicit) {
    const { ElicitRequestSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const answer = options.elicit;
    client.setRequestHandler(ElicitRequestSchema, (request) => answer(String(request.params.message)));
  }
  // Every JSON-RPC message the server writes on stdout, from the first (the client sets its own
  // handler just before starting the transport).
  const start = transport.start.bind(transport);
  transport.start = () => {
    const inner = transport.onmessage;
    transport.onmessage = (message) => {
      printed.push(JSON.stringify(message));
      inner?.(message);
    };
    return start();
  };
  await client.connect(transport);
  return {
    client,
    stderr: () => errText,
    call: async (name, args = {}) => {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      printed.push(JSON.stringify(result));
      return result;
    },
    close: () => client.close(),
    pid: () => transport.pid,
    exited: () => {
      // The SDK keeps its child process to itself; its exit is what a signal test waits for.
      const child = (transport as unknown as { _process?: ChildProcess })._process;
      if (!child) return Promise.resolve(null);
      if (child.exitCode !== null || child.signalCode !== null)
        return Promise.resolve(child.exitCode ?? child.signalCode);
      return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)));
    },
  };
}

export function text(result: CallToolResult): string {
  return result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}
