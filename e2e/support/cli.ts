// Runs the `conduit` CLI as a user does: a separate process (packages/cli/bin/conduit.js, what `npx conduit` runs),
// with its own config file, optionally under a pseudo-terminal (util-linux `script`).
import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../packages/cli/bin/conduit.js');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string>;
  input?: string;
  timeoutMs?: number;
}

function collect(command: string, args: string[], options: CliOptions): Promise<CliResult> {
  return new Promise((ok, fail) => {
    const child = spawn(command, args, {
      env: { PATH: process.env.PATH ?? '', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
      fail(
        new Error(
          `conduit ${args.join(' ')} did not end in ${options.timeoutMs ?? 60_000} ms; stdout: ${stdout}; stderr: ${stderr}`,
        ),
      );
    }, options.timeoutMs ?? 60_000);
    child.on('error', fail);
    child.on('close', (code) => (clearTimeout(timer), ok({ code, stdout, stderr })));
    child.stdin.end(options.input ?? '');
  });
}

/** `conduit <args>` with pipes for stdin, stdout and stderr (no terminal: no colours, no spinner). */
export function conduit(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return collect(process.execPath, [CLI, ...args], options);
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** `conduit <args>` under a pseudo-terminal; `script -e` answers the CLI's exit code. stdout holds what the terminal showed. */
export function conduitOnTty(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const command = [process.execPath, CLI, ...args].map(shellQuote).join(' ');
  return collect('script', ['-qefc', command, '/dev/null'], {
    ...options,
    env: { TERM: 'xterm-256color', ...options.env },
  });
}
