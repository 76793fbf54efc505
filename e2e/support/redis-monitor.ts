/**
 * Every command a Redis server receives, as MONITOR shows it, read from a plain socket. ioredis' own monitor() can
 * fail with "Command queue state error" when a busy server's MONITOR lines interleave with its reply to MONITOR (seen
 * in CI); a monitor needs no command queue, only lines, so this reads them directly.
 */
import { type Socket, connect } from 'node:net';

export interface RedisMonitor {
  /** Each command as its arguments joined by spaces, in the order the server received them. */
  readonly commands: string[];
  stop(): void;
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b', '"': '"', '\\': '\\' };

/** The arguments of one MONITOR line: `+<time> [<db> <client>] "arg" "arg"...`, quoted as Redis' sdscatrepr writes them. */
export function monitorArguments(line: string): string[] {
  const args: string[] = [];
  for (const [, quoted] of line.matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
    args.push(
      quoted!.replace(/\\x([0-9a-f]{2})|\\(.)/gi, (_m, hex: string | undefined, c: string) =>
        hex ? String.fromCharCode(parseInt(hex, 16)) : (ESCAPES[c] ?? c),
      ),
    );
  }
  return args;
}

/** Starts watching once the server has acknowledged MONITOR. */
export async function monitorRedis(server: { host: string; port: number }): Promise<RedisMonitor> {
  const commands: string[] = [];
  const socket: Socket = connect(server.port, server.host);
  socket.setEncoding('utf8');
  let pending = '';
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.on('data', (chunk: string) => {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf('\r\n')) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (line === '+OK') resolve();
        else if (line.startsWith('+')) commands.push(monitorArguments(line).join(' '));
        else if (line.startsWith('-')) reject(new Error(`MONITOR refused: ${line.slice(1)}`));
      }
    });
    socket.write('MONITOR\r\n');
  });
  return { commands, stop: () => socket.destroy() };
}
