/**
 * The messages between a process and its DuckDB file workers (workers.ts, child.ts), over Node's IPC channel. A worker
 * does one piece of work at a time: the parent sends `work`, the child answers `done` or `failed`; a row read sends
 * `batch` after batch, each after the parent's `more`; `abort` asks the child to stop the work in hand. Both sides
 * read them with these guards.
 */
import type { ColumnSpec, DuckdbLimits, ErrorClass, Row, WriteMode } from '../../types.js';
import type { DuckdbConfig } from '../duckdb.config.js';

/** What a sink asks of the file: the WriteRequest's own fields, without its signal, pools or limits. */
export interface FileWrite {
  table: string;
  mode: WriteMode;
  key?: string[] | undefined;
  create?: boolean | undefined;
  schema_evolution?: 'none' | 'add_columns' | undefined;
}

/** What a source asks of the file. */
export interface FileRead {
  table?: string | undefined;
  query?: string | undefined;
  batchSize?: number | undefined;
}

interface FileWorkBase {
  cfg: DuckdbConfig;
  tenantId: string | undefined;
  /** The parent's CONNECTOR_DATA_ROOT at the call (the child has no environment of its own). */
  dataRoot: string;
  limits: DuckdbLimits | undefined;
}

/**
 * `read`: the rows of `read`, in batches. `read-parquet`: `read`'s rows copied into the Parquet file `file`; answers
 * the columns. `load-parquet`: the Parquet file `file` (of `columns`) loaded as `write` says. `load-staged`: the JSON
 * lines file `staged` loaded as `write` says. `execute`: the sql node's statement. `open`: the file opened, its
 * DuckDB version and whether `schema` exists.
 */
export type FileWork = FileWorkBase &
  (
    | { op: 'read'; read: FileRead }
    | { op: 'read-parquet'; read: FileRead; file: string }
    | { op: 'load-parquet'; write: FileWrite; columns: ColumnSpec[]; file: string }
    | { op: 'load-staged'; write: FileWrite; staged: string; hasRows: boolean }
    | { op: 'execute'; sql: string }
    | { op: 'open' }
  );

export type ToWorker = { type: 'work'; work: FileWork } | { type: 'more' } | { type: 'abort' };

export type FromWorker =
  | { type: 'batch'; rows: Row[] }
  | { type: 'done'; result: unknown }
  | { type: 'failed'; message: string; error_class: ErrorClass; code?: string | undefined };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

const OPS: ReadonlySet<unknown> = new Set(['read', 'read-parquet', 'load-parquet', 'load-staged', 'execute', 'open']);

export function isToWorker(value: unknown): value is ToWorker {
  if (!isRecord(value)) return false;
  if (value['type'] === 'more' || value['type'] === 'abort') return true;
  const work = value['work'];
  return (
    value['type'] === 'work' &&
    isRecord(work) &&
    OPS.has(work['op']) &&
    isRecord(work['cfg']) &&
    typeof work['cfg']['path'] === 'string' &&
    typeof work['cfg']['schema'] === 'string' &&
    typeof work['dataRoot'] === 'string'
  );
}

export function isFromWorker(value: unknown): value is FromWorker {
  if (!isRecord(value)) return false;
  switch (value['type']) {
    case 'batch':
      return Array.isArray(value['rows']);
    case 'done':
      return 'result' in value;
    case 'failed':
      return (
        typeof value['message'] === 'string' &&
        (value['error_class'] === 'config_error' || value['error_class'] === 'transient_error')
      );
    default:
      return false;
  }
}
