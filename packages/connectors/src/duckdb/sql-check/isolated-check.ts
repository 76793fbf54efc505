/**
 * userSqlProblem and bindUserSql in a child process of its own, for a process that checks other tenants' SQL while it
 * serves them (the catalog, at save time). Binding a statement folds its constants, and DuckDB neither bounds nor interrupts that
 * work: `select repeat('a', 2000000000)` grew the catalog by 9 GB and a 92-character `list_transform` over `range`
 * bound for minutes, each holding a libuv thread and the save's transaction (an attacker's probes). In the child, an
 * allocation past its data-size limit fails (DuckDB then leaves the constant unfolded), and a check past its caller's
 * time answers undefined: not checked here (the executor checks the SQL again when it runs). Such a check runs on in
 * the child until the child is restarted (ABANDONED_CAP_MS, MAX_ABANDONED); the checks other callers still wait for
 * then go to the new child, so one tenant's slow SQL does not end another's check.
 */
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { spawnLimitedNode } from '../../limited-child.js';
import type { BindInput, BindOutcome } from '../sql-binder.js';
import type { UserSqlKind } from '../user-sql.js';
import { isSqlCheckAnswer, type SqlCheckAnswer, type SqlCheckRequest, type SqlCheckWork } from './messages.js';

/**
 * The child's data-size limit (RLIMIT_DATA): Node and the 64 MB parsing instance take ~140 MB of it, so a statement's
 * plan gets ~240 MB at most. That also bounds what a plan takes where the SQL then runs (the executor binds only what
 * the child bound whole, two statements at a time), beside the runs' memory in its container (k8s/base/executor.yaml).
 */
const CHILD_DATA_LIMIT_KIB = 384 * 1024;
/** The compiled child, from src/ (the package's tests) and dist/ alike: both sit three folders below the package. */
const CHILD_PATH = fileURLToPath(new URL('../../../dist/duckdb/sql-check/child.js', import.meta.url));
/** The longest a caller may wait (a larger timer would fire at once). */
const MAX_TIMEOUT_MS = 60_000;
/**
 * A check its caller stopped waiting for goes on in the child (on one of its libuv threads). The child is restarted
 * when one has run this long, or when more than MAX_ABANDONED are running: not at every caller's deadline, which
 * would end every other tenant's check in flight with it.
 */
const ABANDONED_CAP_MS = 5_000;
const MAX_ABANDONED = 2;
/** How often a child that exits by itself is reported (process warnings). */
const WARN_EVERY_MS = 60_000;

interface Pending {
  request: SqlCheckRequest;
  resolve: (answer: SqlCheckAnswer | undefined) => void;
  timer: NodeJS.Timeout;
  sentAt: number;
  /** Sent again to a new child once already: a second restart answers it undefined. */
  resent: boolean;
}

class SqlCheckProcess {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Checks whose caller stopped waiting, still running in the child, by when they were sent. */
  private readonly abandoned = new Map<number, number>();
  private reaper: NodeJS.Timeout | null = null;
  private nextId = 1;
  private lastWarning = 0;

  /** The child's answer to `work`, undefined when it did not answer within `timeoutMs`. */
  ask(work: SqlCheckWork, timeoutMs: number): Promise<SqlCheckAnswer | undefined> {
    if (!(timeoutMs > 0)) return Promise.resolve(undefined);
    const child = this.started();
    if (!child) return Promise.resolve(undefined);
    const request: SqlCheckRequest = { ...work, id: this.nextId++ };
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.abandon(request.id), Math.min(timeoutMs, MAX_TIMEOUT_MS));
      this.pending.set(request.id, { request, resolve, timer, sentAt: Date.now(), resent: false });
      this.send(child, request);
      this.hold();
    });
  }

  private started(): ChildProcess | null {
    if (this.child) return this.child;
    let child: ChildProcess;
    try {
      child = spawnLimitedNode(CHILD_PATH, CHILD_DATA_LIMIT_KIB);
    } catch (err) {
      this.warn(`the SQL-check child could not start: ${(err as Error).message}`);
      return null;
    }
    child.on('message', (message: unknown) => {
      if (!isSqlCheckAnswer(message)) return;
      if (this.abandoned.delete(message.id)) return;
      this.settle(message.id, message);
    });
    child.on('error', (err) => this.exited(child, `the SQL-check child failed: ${err.message}`));
    child.on('exit', (code, signal) =>
      this.exited(child, `the SQL-check child exited (${signal ?? `code ${String(code)}`})`),
    );
    this.child = child;
    return child;
  }

  private send(child: ChildProcess, request: SqlCheckRequest): void {
    child.send(request, (err) => {
      if (err) this.settle(request.id, undefined);
    });
  }

  private settle(id: number, answer: SqlCheckAnswer | undefined): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    clearTimeout(entry.timer);
    entry.resolve(answer);
    this.hold();
  }

  /** The caller's time is up: it is answered undefined, and the check is left to run out in the child. */
  private abandon(id: number): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.settle(id, undefined);
    this.abandoned.set(id, entry.sentAt);
    if (this.abandoned.size > MAX_ABANDONED) this.restart();
    else this.armReaper();
  }

  /** Restarts the child once the oldest abandoned check has run ABANDONED_CAP_MS. */
  private armReaper(): void {
    if (this.reaper || this.abandoned.size === 0) return;
    const due = Math.min(...this.abandoned.values()) + ABANDONED_CAP_MS;
    this.reaper = setTimeout(
      () => {
        this.reaper = null;
        if (Math.min(...this.abandoned.values()) + ABANDONED_CAP_MS <= Date.now()) this.restart();
        else this.armReaper();
      },
      Math.max(0, due - Date.now()),
    );
    this.reaper.unref();
  }

  /** A child that ended by itself (a crash, a failed start): its waiting checks go to the next. */
  private exited(child: ChildProcess, why: string): void {
    if (child !== this.child) return;
    this.warn(why);
    this.restart();
  }

  /** Kills the child; the checks still waiting are sent to a new one, each at most once. */
  private restart(): void {
    const old = this.child;
    this.child = null;
    old?.kill('SIGKILL');
    this.abandoned.clear();
    if (this.reaper) clearTimeout(this.reaper);
    this.reaper = null;
    const waiting = [...this.pending.values()];
    const next = waiting.some((entry) => !entry.resent) ? this.started() : null;
    for (const entry of waiting) {
      if (!next || entry.resent) this.settle(entry.request.id, undefined);
      else {
        entry.resent = true;
        this.send(next, entry.request);
      }
    }
    this.hold();
  }

  /** A child keeps no process alive while no check waits on it: it exits with its parent (child.ts). */
  private hold(): void {
    const child = this.child;
    if (!child) return;
    if (this.pending.size > 0) {
      child.ref();
      child.channel?.ref();
    } else {
      child.unref();
      child.channel?.unref();
    }
  }

  private warn(message: string): void {
    if (Date.now() - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = Date.now();
    process.emitWarning(`${message}; the checks it held go to a new one`, { code: 'CONDUIT_SQL_CHECK' });
  }
}

const checks = new SqlCheckProcess();

/**
 * userSqlProblem of `sql`, checked in the process's SQL-check child within `timeoutMs`: the problem, null when the SQL
 * may run, undefined when it could not be checked in time (or the child could not start).
 */
export async function isolatedSqlProblem(
  sql: string,
  kind: UserSqlKind,
  timeoutMs: number,
): Promise<string | null | undefined> {
  const answer = await checks.ask({ op: 'check', sql, kind }, timeoutMs);
  return answer && 'problem' in answer ? answer.problem : undefined;
}

/**
 * bindUserSql of `sql` against `inputs`, in the process's SQL-check child within `timeoutMs`: binding folds the
 * constants the binder needs (a table function's arguments, a `LIMIT`, a JSON path or a pattern) and expands macros,
 * unbounded by DuckDB. Undefined when it did not bind in time (or the child could not start); work that failed in
 * the child is `unbindable` with its message.
 */
export async function isolatedBind(
  sql: string,
  inputs: readonly BindInput[],
  timeoutMs: number,
): Promise<BindOutcome | undefined> {
  const answer = await checks.ask({ op: 'bind', sql, inputs: [...inputs] }, timeoutMs);
  if (!answer) return undefined;
  // The bind itself threw in the child (DuckDB failing to declare a table, say): the SQL did not bind, with that message.
  if ('failed' in answer) return { kind: 'unbindable', message: answer.failed, error: answer.failed };
  return 'outcome' in answer ? answer.outcome : undefined;
}
