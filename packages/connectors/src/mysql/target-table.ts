/**
 * The sink's target table on the MySQL side: what columns and unique keys it has, creating it when it is missing
 * (unless `create: false`) and adding the input's columns it lacks (only with `schema_evolution: "add_columns"`).
 * DDL commits on its own in MySQL, so this runs before the write's transaction.
 */
import mysql from 'mysql2';
import type { Connection, RowDataPacket } from 'mysql2/promise';
import type { DuckDBConnection } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import type { WriteRequest } from '../types.js';
import { keyColumnType, type WriteColumn } from './duckdb-to-mysql-types.js';

export interface TargetName {
  /** `db`.`table`, quoted. */
  quoted: string;
  schema: string | null;
  table: string;
}

/** `table` or `db.table`, as the row sink's escapeId has always read it. */
export function targetName(name: string): TargetName {
  const dot = name.indexOf('.');
  const [schema, table] = dot < 0 ? [null, name] : [name.slice(0, dot), name.slice(dot + 1)];
  if (table === '' || schema === '') throw new ConnectorError(`invalid table name "${name}"`, 'config_error');
  return { quoted: mysql.escapeId(name), schema, table };
}

/** The target's columns by lower-case name (MySQL compares them so) with their data types, or null when it does not exist. */
async function existingColumns(connection: Connection, target: TargetName): Promise<Map<string, string> | null> {
  const [rows] = await connection.query<RowDataPacket[]>(
    'select column_name as name, data_type as type from information_schema.columns where table_schema = coalesce(?, database()) and table_name = ?',
    [target.schema, target.table],
  );
  return rows.length === 0
    ? null
    : new Map(rows.map((r) => [String(r['name']).toLowerCase(), String(r['type']).toLowerCase()]));
}

/** Unique keys (primary included) as sets of lower-case column names. */
async function uniqueKeys(connection: Connection, target: TargetName): Promise<Set<string>[]> {
  const [rows] = await connection.query<RowDataPacket[]>(
    'select index_name as idx, column_name as col from information_schema.statistics ' +
      'where table_schema = coalesce(?, database()) and table_name = ? and non_unique = 0',
    [target.schema, target.table],
  );
  const keys = new Map<string, Set<string>>();
  for (const row of rows) {
    const idx = String(row['idx']);
    if (!keys.has(idx)) keys.set(idx, new Set());
    keys.get(idx)!.add(String(row['col']).toLowerCase());
  }
  return [...keys.values()];
}

export interface PreparedTarget {
  /** The sink created the table: a failed write drops it again. */
  created: boolean;
  /** The input's columns, marked where the target column is a BIT. */
  columns: WriteColumn[];
}

/** Makes sure the target exists and can take every input column; refuses what the request does not allow. */
export async function prepareTarget(
  connection: Connection,
  duck: DuckDBConnection,
  source: string,
  target: TargetName,
  columns: readonly WriteColumn[],
  req: WriteRequest,
): Promise<PreparedTarget> {
  const key = req.key ?? [];
  const existing = await existingColumns(connection, target);
  if (existing === null) {
    if (req.create === false) {
      throw new ConnectorError(`table ${target.table} does not exist (the sink has create: false)`, 'config_error', {
        code: 'ER_NO_SUCH_TABLE',
      });
    }
    await createTable(connection, duck, source, target, columns, key);
    return { created: true, columns: [...columns] };
  }
  const missing = columns.filter((c) => !existing.has(c.name.toLowerCase()));
  if (missing.length > 0) {
    if (req.schema_evolution !== 'add_columns') {
      const names = missing.map((c) => `"${c.name}" (${c.duckType})`).join(', ');
      throw new ConnectorError(
        `table ${target.table} has no column ${names}; set schema_evolution: "add_columns" to add it`,
        'config_error',
      );
    }
    const adds = missing.map((c) => `add column ${mysql.escapeId(c.name)} ${c.mysqlType}`).join(', ');
    await connection.query(`alter table ${target.quoted} ${adds}`);
  }
  if (req.mode === 'upsert') await checkUpsertKey(connection, target, key);
  return {
    created: false,
    columns: columns.map((c) => (existing.get(c.name.toLowerCase()) === 'bit' ? { ...c, bit: true } : c)),
  };
}

async function createTable(
  connection: Connection,
  duck: DuckDBConnection,
  source: string,
  target: TargetName,
  columns: readonly WriteColumn[],
  key: readonly string[],
): Promise<void> {
  const definitions: string[] = [];
  for (const column of columns) {
    const inKey = key.includes(column.name);
    const type = inKey ? await keyColumnType(duck, source, column) : column.mysqlType;
    definitions.push(`${mysql.escapeId(column.name)} ${type}${inKey ? ' not null' : ''}`);
  }
  if (key.length > 0) definitions.push(`primary key (${key.map((k) => mysql.escapeId(k)).join(', ')})`);
  // A binary collation compares keys as DuckDB does ('a' and 'A' are two keys).
  await connection.query(
    `create table ${target.quoted} (${definitions.join(', ')}) character set utf8mb4 collate utf8mb4_bin`,
  );
}

/** ON DUPLICATE KEY UPDATE goes by the table's unique keys: without one on exactly `key`, an upsert would append. */
async function checkUpsertKey(connection: Connection, target: TargetName, key: readonly string[]): Promise<void> {
  const wanted = new Set(key.map((k) => k.toLowerCase()));
  const keys = await uniqueKeys(connection, target);
  const matches = keys.some((k) => k.size === wanted.size && [...wanted].every((c) => k.has(c)));
  if (!matches) {
    throw new ConnectorError(
      `upsert key (${key.join(', ')}) is not a primary or unique key of table ${target.table}`,
      'config_error',
    );
  }
}

/** Drops a table this write created, after the write failed (best effort: the error that matters is the write's). */
export async function dropCreated(connection: Connection, target: TargetName): Promise<void> {
  await connection.query(`drop table if exists ${target.quoted}`).catch(() => undefined);
}
