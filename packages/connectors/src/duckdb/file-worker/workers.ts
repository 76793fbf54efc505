/**
 * The duckdb connector's work on a tenant's file, done in a child process of its own (child.ts), one piece of work at
 * a time. Opening the tenant's file binds what the tenant put in it: views and macros that DuckDB's binder expands
 * (a chain of views each reading the one before twice grows exponentially: 17 levels took 14 s and 1.3 GB), constants
 * it folds (`json_extract(s, repeat('$', 2000000000))`), CHECK constraints and defaults. DuckDB bounds none of that by
 * its memory limit, and a bind does not see an interrupt. In the worker, an allocation past its data-size limit fails
 * there (or ends the worker), and work its caller stops waiting for is interrupted, then ended with the worker: the
 * process that serves every tenant (the executor, the catalog) only ever waits.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { ConnectorError } from '../../connector-error.js';
import { connectorEnvironment } from '../../environment.js';
import { spawnLimitedNode } from '../../limited-child.js';
import type { DuckdbLimits, ReadRequest, Row, WriteRequest } from '../../types.js';
import { databaseFile } from '../database.js';
import { DEFAULT_DUCKDB_LIMITS } from '../limits.js';
import { lockFile, type FileAccess } from './file-locks.js';
import {
  isFromWorker,
  type FileRead,
  type FileWork,
  type FileWrite,
  type FromWorker,
  type ToWorker,
} from './messages.js';
import { stopWorking, takeSlot } from './slots.js';

/** The compiled child, from src/ (the package's tests) and dist/ alike: both sit three folders below the package. */
const CHILD_PATH = fileURLToPath(new URL('../../../dist/duckdb/file-worker/child.js', import.meta.url));
const MiB = 1024 * 1024;
/**
 * A worker's data-size limit (RLIMIT_DATA, which counts what is mapped, not what is touched): what an idle worker
 * maps (~150 MiB: Node, libduckdb, malloc's arenas) and room for a plan, three times the file's DuckDB memory (its
 * buffer pool, and what DuckDB allocates beside it while loading or writing), and each DuckDB thread's stack and
 * malloc arena.
 */
const BASE_DATA_BYTES = 384 * MiB;
const PER_THREAD_DATA_BYTES = 64 * MiB;
/** Idle workers kept for the next work (each ~110 MiB resident), and for how long. */
const MAX_IDLE = 2;
const IDLE_MS = 5 * 60_000;
/** How long stopped work may take to end (a bind does not see the interrupt) before its worker is killed. */
const STOP_GRACE_MS = 1_000;

/** The data-size limit of a worker doing work with `limits`, in KiB. */
export function workerDataLimitKiB(limits: DuckdbLimits | undefined): number {
  const memory = limits?.memoryLimitBytes ?? DEFAULT_DUCKDB_LIMITS.memoryLimitBytes;
  const threads = limits?.threads ?? DEFAULT_DUCKDB_LIMITS.threads;
  return Math.ceil((BASE_DATA_BYTES + 3 * memory + threads * PER_THREAD_DATA_BYTES) / 1024);
}

/** One worker process: its messages in order, and its end. */
class FileWorker {
  private readonly child: ChildProcess;
  private readonly inbox: FromWorker[] = [];
  private wake: (() => void) | null = null;
  private exit: string | null = null;
  idleTimer: NodeJS.Timeout | null = null;

  constructor(readonly dataLimitKiB: number) {
    // The parent's time zone, which DuckDB's ICU takes as its TimeZone (text of a timestamptz): none else.
    const tz = process.env['TZ'];
    this.child = spawnLimitedNode(CHILD_PATH, dataLimitKiB, tz === undefined ? {} : { TZ: tz });
    this.child.on('message', (message: unknown) => {
      if (!isFromWorker(message)) return;
      this.inbox.push(message);
      this.wake?.();
    });
    this.child.on('error', (err) => this.ended(err.message));
    this.child.on('exit', (code, signal) => this.ended(signal ?? `code ${String(code)}`));
  }

  get alive(): boolean {
    return this.exit === null;
  }

  /** Sends `message`; a worker that cannot take it (its channel never opened: EMFILE at spawn) is ended. */
  send(message: ToWorker): void {
    if (!this.alive) return;
    if (typeof this.child.send !== 'function' || !this.child.connected) {
      this.kill('its channel is closed');
      return;
    }
    try {
      this.child.send(message, (err) => {
        if (err) this.kill(err.message);
      });
    } catch (err) {
      this.kill((err as Error).message);
    }
  }

  /** VmData of the worker (what its data-size limit counts), in KiB; undefined when it cannot be read. */
  async dataKiB(): Promise<number | undefined> {
    const pid = this.child.pid;
    if (pid === undefined || !this.alive) return undefined;
    const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
    const match = /^VmData:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  }

  /** The next message; rejects when the worker ended first, or with `signal`'s reason when it aborts first. */
  async next(signal?: AbortSignal): Promise<FromWorker> {
    for (;;) {
      const message = this.inbox.shift();
      if (message) return message;
      if (this.exit !== null) {
        // Its plan past the worker's memory, DuckDB failing, or the process failing to start: a fresh worker may pass.
        throw new ConnectorError(
          `the DuckDB file's work ended the process doing it (${this.exit}): it needed more memory than the run's ` +
            'DuckDB may use, or the process failed',
          'transient_error',
        );
      }
      signal?.throwIfAborted();
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        signal?.addEventListener('abort', onAbort, { once: true });
        this.wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
      });
      this.wake = null;
    }
  }

  /** Asks the work in hand to stop and waits for its end, at most STOP_GRACE_MS; then the worker is killed. */
  async stop(): Promise<void> {
    this.send({ type: 'abort' });
    const deadline = AbortSignal.timeout(STOP_GRACE_MS);
    try {
      for (;;) {
        const message = await this.next(deadline);
        if (message.type !== 'batch') return;
      }
    } catch {
      this.kill();
    }
  }

  kill(why = 'killed'): void {
    if (this.alive) this.child.kill('SIGKILL');
    this.ended(why);
  }

  /** No idle worker keeps its parent running. */
  hold(held: boolean): void {
    if (!this.alive) return;
    if (held) {
      this.child.ref();
      this.child.channel?.ref();
    } else {
      this.child.unref();
      this.child.channel?.unref();
    }
  }

  private ended(why: string): void {
    this.exit ??= why;
    this.wake?.();
  }
}

/** Idle workers, the most recently used last. */
const idle: FileWorker[] = [];

function take(dataLimitKiB: number): FileWorker {
  for (let i = idle.length - 1; i >= 0; i--) {
    const worker = idle[i]!;
    if (worker.dataLimitKiB !== dataLimitKiB || !worker.alive) continue;
    idle.splice(i, 1);
    if (worker.idleTimer) clearTimeout(worker.idleTimer);
    worker.hold(true);
    return worker;
  }
  try {
    const worker = new FileWorker(dataLimitKiB);
    worker.hold(true);
    return worker;
  } catch (err) {
    // A spawn that throws (rare: most failures arrive as the child's 'error' event, ending the worker).
    throw new ConnectorError(`the DuckDB file worker could not start: ${(err as Error).message}`, 'transient_error');
  }
}

/**
 * Keeps `worker` for the next work when its work ended by itself (`clean`: a stopped one may leave its result or
 * file open) and it has not grown past half its limit (what DuckDB and malloc keep grows from work to work); else
 * ends it.
 */
async function release(worker: FileWorker, clean: boolean): Promise<void> {
  const data = clean && worker.alive && idle.length < MAX_IDLE ? await worker.dataKiB() : undefined;
  if (data === undefined || data > worker.dataLimitKiB / 2 || idle.length >= MAX_IDLE) {
    worker.kill();
    return;
  }
  worker.hold(false);
  worker.idleTimer = setTimeout(() => {
    const at = idle.indexOf(worker);
    if (at >= 0) idle.splice(at, 1);
    worker.kill();
  }, IDLE_MS);
  worker.idleTimer.unref();
  idle.push(worker);
}

/** The parts of every piece of work that come from the call: the tenant, the data root now, the limits. */
export function fileWorkBase(
  tenantId: string | undefined,
  limits: DuckdbLimits | undefined,
): { tenantId: string | undefined; dataRoot: string; limits: DuckdbLimits | undefined } {
  return { tenantId, dataRoot: connectorEnvironment().dataRoot, limits };
}

const ACCESS: Record<FileWork['op'], FileAccess> = {
  read: 'read',
  'read-parquet': 'read',
  open: 'read',
  'load-parquet': 'write',
  'load-staged': 'write',
  execute: 'write',
};

/** The file `work` is on, as the worker resolves it; a path that does not resolve is the worker's to refuse. */
async function fileOf(work: FileWork): Promise<string> {
  return databaseFile(work.cfg, work.tenantId).then(
    ({ file }) => file,
    () => `unresolved:${work.tenantId ?? ''}:${work.cfg.path}`,
  );
}

/** What a source's request asks of the file. */
export const fileReadOf = (req: ReadRequest): FileRead => ({
  table: req.table,
  query: req.query,
  batchSize: req.batchSize,
});

/** What a sink's request asks of the file. */
export const fileWriteOf = (req: WriteRequest): FileWrite => ({
  table: req.table,
  mode: req.mode,
  key: req.key,
  create: req.create,
  schema_evolution: req.schema_evolution,
});

/**
 * Does `work` in a worker: yields the batches of a row read (the next is asked for when the consumer wants it) and
 * returns the work's answer. The worker's failure is thrown as its ConnectorError; an abort of `signal` throws its
 * reason once the work has stopped (at most STOP_GRACE_MS later): only then are the file and the slot free again.
 */
export async function* workInWorker(work: FileWork, signal?: AbortSignal): AsyncGenerator<Row[], unknown, void> {
  const releaseFile = await lockFile(await fileOf(work), ACCESS[work.op], signal);
  const tenant = work.tenantId ?? '';
  let worker: FileWorker;
  try {
    await takeSlot(tenant, signal);
    try {
      worker = take(workerDataLimitKiB(work.limits));
    } catch (err) {
      stopWorking(tenant);
      throw err;
    }
  } catch (err) {
    releaseFile();
    throw err;
  }
  let ended = false;
  try {
    worker.send({ type: 'work', work });
    for (;;) {
      const message = await worker.next(signal);
      if (message.type === 'batch') {
        yield message.rows;
        worker.send({ type: 'more' });
        continue;
      }
      ended = true;
      if (message.type === 'done') return message.result;
      throw new ConnectorError(message.message, message.error_class, { code: message.code });
    }
  } finally {
    try {
      if (!ended && worker.alive) await worker.stop();
      await release(worker, ended);
    } finally {
      stopWorking(tenant);
      releaseFile();
    }
  }
}

/** Does `work` (one that makes no rows) in a worker and answers its result. */
export async function inWorker<T>(work: FileWork, signal?: AbortSignal): Promise<T> {
  const conversation = workInWorker(work, signal);
  for (;;) {
    const step = await conversation.next();
    if (step.done) return step.value as T;
  }
}
