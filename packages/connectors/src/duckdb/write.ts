/**
 * Bulk-loads rows into a DuckDB table: the batches are streamed into a temporary JSON lines file beside the
 * database, which DuckDB (in a file worker: file-worker/) then loads in one statement (`read_json`, types inferred from every row) inside one
 * transaction. A missing table is created from the rows. `overwrite` deletes the old rows first; `upsert` deletes
 * the rows whose key comes again, then inserts the last row of each key.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { encodeRows } from '../formats/encode.js';
import type { Row, WriteRequest } from '../types.js';
import { databaseFile, qualifiedTable, quoteIdent, withDatabase } from './database.js';
import type { DuckdbConfig } from './duckdb.config.js';
import { fileWorkBase, fileWriteOf, inWorker } from './file-worker/workers.js';
import { removeFile } from '../remove-file.js';
import { readAll } from './read-all.js';

export const ORDINAL = '_conduit_ordinal';
export const STAGING = 'conduit_staging';

export async function writeDuckdb(
  cfg: DuckdbConfig,
  req: WriteRequest,
  batches: AsyncIterable<Row[]>,
): Promise<{ rows_written: number }> {
  const { signal } = req;
  checkedLoadKey(cfg, req);
  const { file } = await databaseFile(cfg, req.tenantId);
  await mkdir(dirname(file), { recursive: true });
  const staged = join(dirname(file), `.conduit-load-${randomUUID()}.jsonl`);
  try {
    let rows = 0;
    let ordinal = 0;
    const numbered = (async function* () {
      for await (const batch of batches) yield batch.map((row) => ({ ...row, [ORDINAL]: ordinal++ }));
    })();
    await pipeline(
      Readable.from(encodeRows('jsonl', numbered, { onRows: (n) => (rows += n) })),
      createWriteStream(staged),
      signal ? { signal } : {},
    );
    await inWorker(
      {
        op: 'load-staged',
        cfg,
        ...fileWorkBase(req.tenantId, req.duckdbLimits),
        write: fileWriteOf(req),
        staged,
        hasRows: rows > 0,
      },
      signal,
    );
    return { rows_written: rows };
  } finally {
    await removeFile(staged);
  }
}

/**
 * An upsert's key (none for the other modes), once the request's table name and key are checked: a load's request
 * fails before anything is staged, and again in the worker before anything is loaded.
 */
export function checkedLoadKey(cfg: DuckdbConfig, req: WriteRequest): readonly string[] {
  qualifiedTable(req.table, cfg.schema);
  if (req.mode !== 'upsert') return [];
  if ((req.key ?? []).length === 0) throw new ConnectorError('upsert needs a key', 'config_error');
  return req.key!;
}

/** What a load into the file works with: its connection, the target table (quoted) and an upsert's key. */
export interface FileLoad {
  connection: DuckDBConnection;
  target: string;
  key: readonly string[];
}

/**
 * `work` in one transaction on the connector's file opened for writing, where `file` (the platform's staging file:
 * our SQL, not the user's) is the one other file the instance may read; rolled back when `work` throws.
 */
export async function inLoadTransaction<T>(
  cfg: DuckdbConfig,
  req: WriteRequest,
  file: string,
  work: (load: FileLoad) => Promise<T>,
): Promise<T> {
  const key = checkedLoadKey(cfg, req);
  const target = qualifiedTable(req.table, cfg.schema);
  return withDatabase(
    cfg,
    { mode: 'write', tenantId: req.tenantId, allowedPaths: [file], limits: req.duckdbLimits },
    req.signal,
    async (connection) => {
      await connection.run('begin transaction');
      try {
        const result = await work({ connection, target, key });
        await connection.run('commit');
        return result;
      } catch (err) {
        await connection.run('rollback').catch(() => undefined);
        throw err;
      }
    },
  );
}

/** In the file worker: the JSON lines file `staged` loaded into the table as `req` says, in one transaction. */
export async function loadStagedIntoFile(
  cfg: DuckdbConfig,
  req: WriteRequest,
  staged: string,
  hasRows: boolean,
): Promise<void> {
  await inLoadTransaction(cfg, req, staged, async ({ connection, target, key }) => {
    if (hasRows) {
      await connection.run(
        `create temporary table ${STAGING} as select * from read_json(${sqlString(staged)}, format = 'newline_delimited', sample_size = -1)`,
      );
    }
    await load(connection, target, req.mode, key, hasRows);
  });
}

const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;

export async function tableExists(connection: DuckDBConnection, target: string): Promise<boolean> {
  const reader = await readAll(
    connection.run(
      `select count(*) from duckdb_tables() where '"' || replace(schema_name, '"', '""') || '"."' || replace(table_name, '"', '""') || '"' = ${sqlString(target)}`,
    ),
  );
  return Number(reader.getRows()[0]?.[0] ?? 0) > 0;
}

/** Moves the rows of the temporary STAGING table (numbered by ORDINAL) into `target` as `mode` says. */
export async function load(
  connection: DuckDBConnection,
  target: string,
  mode: WriteRequest['mode'],
  key: readonly string[],
  hasRows: boolean,
): Promise<void> {
  const exists = await tableExists(connection, target);
  const ordinal = quoteIdent(ORDINAL);
  const inOrder = `select * exclude (${ordinal}) from ${STAGING} order by ${ordinal}`;
  if (!exists) {
    if (hasRows) await connection.run(`create table ${target} as ${inOrder}`);
    return;
  }
  if (mode === 'overwrite') await connection.run(`delete from ${target}`);
  if (!hasRows) return;
  if (mode === 'upsert') {
    const keyList = key.map(quoteIdent).join(', ');
    const matches = key.map((k) => `${target}.${quoteIdent(k)} = s.${quoteIdent(k)}`).join(' and ');
    await connection.run(`delete from ${target} using ${STAGING} s where ${matches}`);
    await connection.run(
      `insert into ${target} by name select * exclude (${ordinal}) from ${STAGING} ` +
        `qualify row_number() over (partition by ${keyList} order by ${ordinal} desc) = 1`,
    );
    return;
  }
  await connection.run(`insert into ${target} by name ${inOrder}`);
}
