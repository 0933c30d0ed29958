// The sandbox's command (src/cli.ts) run as a child process until it says it has started (then
// stopped with SIGTERM), or until it exits on its own (a refused flag): its exit code and output.
import { spawn } from 'node:child_process';

export interface CommandRun {
  readonly code: number | null;
  readonly out: string;
  readonly err: string;
}

export function runSandboxCommand(args: readonly string[], env: Record<string, string>): Promise<CommandRun> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', '--port', '0', ...args], {
      cwd: new URL('..', import.meta.url).pathname,
      env: { ...process.env, ...env },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
      // Started: stop it, by its own pid.
      if (out.includes('Ctrl-C to stop')) child.kill('SIGTERM');
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}
