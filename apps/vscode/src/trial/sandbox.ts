// "Try Without a Key": the sandbox (@enrich/sandbox) inside the extension host, on a free loopback
// port, for this session. Its code is a separate bundle (dist/sandbox.js) loaded on first use, so
// activation does not pay for it. It answers made-up data for the sandbox's public demo key and
// spends nothing; it stops with the extension.
import type { SandboxServer } from '@enrich/sandbox';
import { DEMO_KEY } from '@enrich/sandbox/demo-key';
import type * as vscode from 'vscode';

export { DEMO_KEY };

export class Trial implements vscode.Disposable {
  private server: SandboxServer | undefined;
  private starting: Promise<SandboxServer> | undefined;

  get url(): string | undefined {
    return this.server?.url;
  }

  /** Starts the sandbox once (a second call reuses it) and returns its origin. */
  async start(): Promise<string> {
    this.starting ??= import('@enrich/sandbox').then(({ startSandboxServer }) =>
      // 127.0.0.1 and port 0: loopback only, on whatever port is free.
      startSandboxServer({ host: '127.0.0.1', port: 0, keys: [DEMO_KEY] }),
    );
    try {
      this.server = await this.starting;
    } catch (error) {
      this.starting = undefined;
      throw error;
    }
    return this.server.url;
  }

  async stop(): Promise<void> {
    const server = this.server ?? (await this.starting?.catch(() => undefined));
    this.server = undefined;
    this.starting = undefined;
    await server?.close();
  }

  dispose(): void {
    void this.stop();
  }
}
