/**
 * The typed PostgreSQL sink (`writeFromTable`): DuckDB prints the table to a CSV file of the run's scratch folder, one
 * expression per column giving PostgreSQL's exact text for the value (duckdb-to-pg-types.ts), and the file streams
 * into COPY FROM STDIN while DuckDB is still writing it (growing-file.ts), where PostgreSQL reads each field as the
 * target column's type. One transaction holds it all
 * (creating a missing table, adding columns, truncating, copying, merging), so a failure leaves the target as it was.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBType } from '@duckdb/node-api';
import type pg from 'pg';
import { ConnectorError } from '../connector-error.js';
import { quoteIdent as duckIdent } from '../duckdb/database.js';
import { readGrowingFile } from '../growing-file.js';
import { removeFile } from '../remove-file.js';
import { DEFAULT_TRANSFER_BUFFERS } from '../transfer-buffers.js';
import type { DuckDBTable, WriteRequest } from '../types.js';
import { openSession } from './pool.js';
import { pgColumnInto, pgColumnOf, type PgColumnMapping } from './duckdb-to-pg-types.js';
import { qualifiedTable, quoteIdent } from './identifiers.js';
import { toConnectorError } from './pg-errors.js';
import type { PostgresConfig } from './postgres.config.js';
import { isUniqueKey, targetColumns, type TargetColumn } from './target-table.js';
import { copyInto, upsert } from './write.js';
import { BEGIN_WRITE } from './snapshot.js';
import { readAll } from '../duckdb/read-all.js';

interface SourceColumn {
  name: string;
  type: DuckDBType;
}

export async function writeFromTable(
  cfg: PostgresConfig,
  req: WriteRequest,
  source: DuckDBTable,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  const target = qualifiedTable(req.table, cfg.schema);
  const columns = await sourceColumns(source);
  const key = keyOf(req, columns, target);
  const file = join(source.scratchDir, `postgres-sink-${randomUUID()}.csv`);

  const session = await openSession(cfg, req).catch((err: unknown) => {
    throw toConnectorError(err, signal);
  });
  const { client } = session;
  let exporting: Promise<void> | undefined;
  let exported = false;
  try {
    await client.query(BEGIN_WRITE);
    const mappings = await prepareTarget(client, req, target, columns, key);
    if (req.mode === 'overwrite') await client.query(`truncate table ${target}`);
    signal?.throwIfAborted();

    // DuckDB writes the file while COPY reads it (a chunk at a time, with backpressure): the two run side by side.
    await writeFile(file, '');
    exporting = exportCsv(source, columns, mappings, file).finally(() => (exported = true));
    exporting.catch(() => undefined);
    const names = columns.map((c) => c.name);
    const rowsOf = () =>
      readGrowingFile(file, exporting!, (source.buffers ?? DEFAULT_TRANSFER_BUFFERS).streamChunkBytes);
    const rows =
      req.mode === 'upsert'
        ? await upsert(client, target, names, key, rowsOf(), signal)
        : await copyInto(client, target, names, rowsOf(), signal);
    // The reader ends only after the export did; this surfaces the export's own failure, if any, before the commit.
    await exporting;
    await client.query('commit');
    return { rows_written: rows };
  } catch (err) {
    // An export that failed (a value error() refuses) removes its file under the COPY reading it: the reader's ENOENT
    // says nothing, the export's own error says why.
    const vanished = (err as { code?: unknown } | null)?.code === 'ENOENT';
    if (exporting && (exported || vanished) && !signal?.aborted) {
      const failure = await exporting.then(
        () => undefined,
        (exportError: unknown) => exportError,
      );
      if (failure !== undefined) throw withCopyContext(failure, signal);
    }
    // A COPY that failed first leaves DuckDB writing: stop it, so the node's connection is free when this returns.
    if (exporting && !exported) {
      source.connection.interrupt();
      await exporting.catch(() => undefined);
    }
    // Closing without commit makes the server roll the transaction back.
    throw signal?.aborted ? signal.reason : withCopyContext(err, signal);
  } finally {
    await session.close();
    await removeFile(file);
  }
}

/** The DuckDB table's columns with their types, as DuckDB reports them for a query over it. */
async function sourceColumns(source: DuckDBTable): Promise<SourceColumn[]> {
  const reader = await readAll(source.connection.run(`select * from ${duckIdent(source.table)} limit 0`));
  const types = reader.columnTypes();
  return reader.columnNames().map((name, i) => ({ name, type: types[i]! }));
}

/** The upsert key (also the primary key of a table the sink creates); every key column must be among the rows'. */
function keyOf(req: WriteRequest, columns: readonly SourceColumn[], target: string): string[] {
  const key = req.key ?? [];
  if (req.mode === 'upsert' && key.length === 0) throw new ConnectorError('upsert needs a key', 'config_error');
  const missing = key.filter((k) => !columns.some((c) => c.name === k));
  if (missing.length > 0) {
    throw new ConnectorError(
      `key column(s) ${names(missing)} for ${target} are not among the input's columns`,
      'config_error',
    );
  }
  return key;
}

const names = (list: readonly string[]): string => list.map(quoteIdent).join(', ');

/**
 * Makes the target ready for the rows (inside the transaction): creates it when missing, adds or refuses columns it
 * lacks, checks an upsert key is unique; answers how each input column is written.
 */
async function prepareTarget(
  client: pg.Client,
  req: WriteRequest,
  target: string,
  columns: readonly SourceColumn[],
  key: readonly string[],
): Promise<PgColumnMapping[]> {
  const existing = await targetColumns(client, target);
  if (existing === undefined) {
    if (req.create === false)
      throw new ConnectorError(`table ${target} does not exist (the sink has create: false)`, 'config_error');
    const mappings = columns.map((c) => pgColumnOf(c.type));
    const definitions = columns.map((c, i) => `${quoteIdent(c.name)} ${mappings[i]!.pgType}`);
    if (key.length > 0) definitions.push(`primary key (${names(key)})`);
    await client.query(`create table ${target} (${definitions.join(', ')})`);
    return mappings;
  }

  const byName = new Map<string, TargetColumn>(existing.map((c) => [c.name, c]));
  const lacking = columns.filter((c) => !byName.has(c.name));
  if (lacking.length > 0 && req.schema_evolution !== 'add_columns') {
    throw new ConnectorError(
      `table ${target} has no column(s) ${names(lacking.map((c) => c.name))}; add them, or set schema_evolution: "add_columns"`,
      'config_error',
    );
  }
  for (const column of lacking) {
    await client.query(`alter table ${target} add column ${quoteIdent(column.name)} ${pgColumnOf(column.type).pgType}`);
  }
  if (req.mode === 'upsert' && !(await isUniqueKey(client, target, key))) {
    throw new ConnectorError(
      `upsert key (${names(key)}) is not the primary key or a unique constraint of table ${target}`,
      'config_error',
    );
  }
  return columns.map((c) => {
    const into = byName.get(c.name);
    return into ? pgColumnInto(c.type, into.type, c.name) : pgColumnOf(c.type);
  });
}

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

/**
 * DuckDB writes the rows as PostgreSQL COPY CSV: every value quoted, so NULL (an empty field) differs from ''. Into
 * `file` itself (no temporary file renamed at the end), which COPY FROM is already reading.
 */
async function exportCsv(
  source: DuckDBTable,
  columns: readonly SourceColumn[],
  mappings: readonly PgColumnMapping[],
  file: string,
): Promise<void> {
  const select = columns.map((c, i) => mappings[i]!.text(duckIdent(c.name))).join(', ');
  await source.connection.run(
    `copy (select ${select} from ${duckIdent(source.table)}) to ${sqlString(file)} (format csv, header false, force_quote *, use_tmp_file false)`,
  );
}

// PostgreSQL's context line of a COPY error (a type's input may add lines before it): `COPY t, line 3, column amount:
// "<value>"` or `COPY t, line 3: "<the line>"`.
const COPY_PLACE = /^COPY .*?, line \d+(?:, column [^:]*)?/m;

/** A ConnectorError that also says where a COPY failed (table, line, column), without the row's data, which may be private. */
function withCopyContext(err: unknown, signal: AbortSignal | undefined): unknown {
  const wrapped = toConnectorError(err, signal);
  const where = (err as { where?: unknown } | null)?.where;
  const place = typeof where === 'string' ? COPY_PLACE.exec(where)?.[0] : undefined;
  if (!(wrapped instanceof ConnectorError) || place === undefined) return wrapped;
  return new ConnectorError(`${wrapped.message}; at ${place}`, wrapped.errorClass, { code: wrapped.code, cause: err });
}
