/**
 * userSqlProblem in a child process of its own, for a process that checks other tenants' SQL while it serves them
 * (the catalog, at save time). Binding a statement folds its constants, and DuckDB neither bounds nor interrupts that
 * work: `select repeat('a', 2000000000)` grew the catalog by 9 GB and a 92-character `list_transform` over `range`
 * bound for minutes, each holding a libuv thread and the save's transaction (an attacker's probes). In the child, an
 * allocation past its data-size limit fails (DuckDB then leaves the constant unfolded) and a check past its time is
 * ended by killing the child; the next check starts a new one. A check that could not finish answers undefined: not
 * checked here (the executor checks the SQL again when it runs, under the run's own limits).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { UserSqlKind } from '../user-sql.js';
import { isSqlCheckAnswer, type SqlCheckRequest } from './messages.js';

/** The child's data-size limit (RLIMIT_DATA): Node and the 64 MB parsing instance fit many times over. */
const CHILD_DATA_LIMIT_KIB = 1024 * 1024;
/** The compiled child, from src/ (the package's tests) and dist/ alike: both sit three folders below the package. */
const CHILD_PATH = fileURLToPath(new URL('../../../dist/duckdb/sql-check/child.js', import.meta.url));
const SHELL = '/bin/sh';

interface Pending {
  resolve: (problem: string | null | undefined) => void;
  timer: NodeJS.Timeout;
}

class SqlCheckProcess {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  /** The problem of `sql`, null when it may run, undefined when it could not be checked within `timeoutMs`. */
  check(sql: string, kind: UserSqlKind, timeoutMs: number): Promise<string | null | undefined> {
    if (!(timeoutMs > 0)) return Promise.resolve(undefined);
    const child = this.started();
    if (!child) return Promise.resolve(undefined);
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.end(child), timeoutMs);
      this.pending.set(id, { resolve, timer });
      this.hold(child);
      const request: SqlCheckRequest = { id, sql, kind };
      child.send(request, (err) => {
        if (err) this.settle(id, undefined);
      });
    });
  }

  /** Kills the child: its checks answer undefined, and the next check starts another. */
  end(child: ChildProcess | null = this.child): void {
    if (!child || child !== this.child) return;
    this.child = null;
    child.kill('SIGKILL');
    for (const id of [...this.pending.keys()]) this.settle(id, undefined);
  }

  private started(): ChildProcess | null {
    if (this.child) return this.child;
    // Not the parent's environment: the child needs none of its secrets.
    const options: SpawnOptions = {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: { PATH: process.env['PATH'] ?? '' },
    };
    let child: ChildProcess;
    try {
      child = existsSync(SHELL)
        ? spawn(
            SHELL,
            [
              '-c',
              'ulimit -d "$1" && exec "$2" "$3"',
              'sql-check',
              String(CHILD_DATA_LIMIT_KIB),
              process.execPath,
              CHILD_PATH,
            ],
            options,
          )
        : spawn(process.execPath, [CHILD_PATH], options);
    } catch {
      return null;
    }
    child.on('message', (message: unknown) => {
      if (!isSqlCheckAnswer(message)) return;
      this.settle(message.id, 'failed' in message ? undefined : message.problem);
    });
    child.on('error', () => this.end(child));
    child.on('exit', () => this.end(child));
    this.child = child;
    this.hold(child);
    return child;
  }

  private settle(id: number, problem: string | null | undefined): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(problem);
    if (this.child) this.hold(this.child);
  }

  /** An idle child keeps no process alive: it exits with its parent (child.ts). */
  private hold(child: ChildProcess): void {
    if (this.pending.size > 0) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }
}

const checks = new SqlCheckProcess();

/**
 * userSqlProblem of `sql`, checked in the process's SQL-check child within `timeoutMs`: the problem, null when the SQL
 * may run, undefined when it could not be checked in time (or the child could not start).
 */
export function isolatedSqlProblem(
  sql: string,
  kind: UserSqlKind,
  timeoutMs: number,
): Promise<string | null | undefined> {
  return checks.check(sql, kind, timeoutMs);
}
