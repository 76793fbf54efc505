/**
 * What a DuckDB column becomes in a MySQL/MariaDB table (docs/type-mapping.md, MySQL section), and the DuckDB
 * expression that prints its values as text the server reads back exactly (bytes as hex, booleans as 0/1, TIMESTAMPTZ
 * as UTC, lists and structs as JSON).
 */
import { DuckDBTypeId, type DuckDBConnection, type DuckDBType } from '@duckdb/node-api';
import { ConnectorError } from '../connector-error.js';
import { quoteIdent } from '../duckdb/database.js';
import { readAll } from '../duckdb/read-all.js';

export interface WriteColumn {
  name: string;
  /** DuckDB's type, for messages. */
  duckType: string;
  /** The MySQL column type for a table or column the sink creates. */
  mysqlType: string;
  /** A DuckDB expression giving the value as VARCHAR (NULL stays NULL). */
  text: string;
  /** The text is hex of bytes: the server takes it through UNHEX(). */
  hex: boolean;
  /** The target column is a BIT: the server takes the number through CAST(... AS UNSIGNED), not as a string of bytes. */
  bit?: boolean;
}

/** MySQL indexes at most 3072 bytes of a key: 768 utf8mb4 characters. */
const MAX_KEY_CHARS = 768;
const MIN_KEY_CHARS = 255;

const sqlString = (text: string): string => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

function mapped(name: string, type: DuckDBType): Omit<WriteColumn, 'name' | 'duckType'> {
  const c = quoteIdent(name);
  const asText = `${c}::VARCHAR`;
  const same = (mysqlType: string) => ({ mysqlType, text: asText, hex: false });
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return { mysqlType: 'TINYINT(1)', text: `${c}::TINYINT::VARCHAR`, hex: false };
    case DuckDBTypeId.TINYINT:
      return same('TINYINT');
    case DuckDBTypeId.SMALLINT:
      return same('SMALLINT');
    case DuckDBTypeId.INTEGER:
      return same('INT');
    case DuckDBTypeId.BIGINT:
      return same('BIGINT');
    case DuckDBTypeId.UTINYINT:
      return same('TINYINT UNSIGNED');
    case DuckDBTypeId.USMALLINT:
      return same('SMALLINT UNSIGNED');
    case DuckDBTypeId.UINTEGER:
      return same('INT UNSIGNED');
    case DuckDBTypeId.UBIGINT:
      return same('BIGINT UNSIGNED');
    // 128-bit integers (what DuckDB's sum() of BIGINT gives) have up to 39 digits.
    case DuckDBTypeId.HUGEINT:
      return same('DECIMAL(39,0)');
    case DuckDBTypeId.UHUGEINT:
      return same('DECIMAL(39,0) UNSIGNED');
    // As the exact double: MySQL parses FLOAT text as a double first, and the shortest float text (3.4028235e+38)
    // can land just past FLT_MAX and be refused.
    case DuckDBTypeId.FLOAT:
      return { mysqlType: 'FLOAT', text: `${c}::DOUBLE::VARCHAR`, hex: false };
    case DuckDBTypeId.DOUBLE:
      return same('DOUBLE');
    case DuckDBTypeId.DECIMAL:
      return same(`DECIMAL(${type.width},${type.scale})`);
    case DuckDBTypeId.DATE:
      return same('DATE');
    case DuckDBTypeId.TIME:
      return same('TIME(6)');
    case DuckDBTypeId.TIME_NS:
      return { mysqlType: 'TIME(6)', text: `${c}::TIME::VARCHAR`, hex: false };
    case DuckDBTypeId.TIMESTAMP:
      return same('DATETIME(6)');
    case DuckDBTypeId.TIMESTAMP_S:
      return same('DATETIME');
    case DuckDBTypeId.TIMESTAMP_MS:
      return same('DATETIME(3)');
    case DuckDBTypeId.TIMESTAMP_NS:
      return { mysqlType: 'DATETIME(6)', text: `${c}::TIMESTAMP::VARCHAR`, hex: false };
    // DATETIME(6) in UTC: MySQL's TIMESTAMP ends in 2038. epoch_us does not depend on the session's time zone.
    case DuckDBTypeId.TIMESTAMP_TZ:
      return { mysqlType: 'DATETIME(6)', text: `make_timestamp(epoch_us(${c}))::VARCHAR`, hex: false };
    case DuckDBTypeId.VARCHAR:
      return same(type.alias === 'JSON' ? 'JSON' : 'LONGTEXT');
    case DuckDBTypeId.BLOB:
      return { mysqlType: 'LONGBLOB', text: `hex(${c})`, hex: true };
    case DuckDBTypeId.UUID:
      return same('CHAR(36)');
    case DuckDBTypeId.ENUM:
      return same(`ENUM(${type.values.map(sqlString).join(', ')})`);
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY:
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
      return { mysqlType: 'JSON', text: `to_json(${c})::VARCHAR`, hex: false };
    default:
      // INTERVAL, TIME WITH TIME ZONE, BIT, BIGNUM...: no MySQL type holds them; DuckDB's text does.
      return same('LONGTEXT');
  }
}

/** The columns of a DuckDB table with their MySQL types, in table order. */
export async function writeColumnsOf(connection: DuckDBConnection, table: string): Promise<WriteColumn[]> {
  const result = await readAll(connection.run(`select * from ${quoteIdent(table)} limit 0`));
  const types = result.columnTypes();
  return result.columnNames().map((name, i) => {
    const type = types[i]!;
    return { name, duckType: type.toString(), ...mapped(name, type) };
  });
}

/**
 * A key column of a table the sink creates: MySQL cannot index LONGTEXT or LONGBLOB, so strings and bytes get a
 * length, 255 or the longest value present (up to what an index holds).
 */
export async function keyColumnType(connection: DuckDBConnection, table: string, column: WriteColumn): Promise<string> {
  const isText = column.mysqlType === 'LONGTEXT';
  if (!isText && column.mysqlType !== 'LONGBLOB') return column.mysqlType;
  const measure = isText ? 'length' : 'octet_length';
  const result = await readAll(
    connection.run(`select max(${measure}(${quoteIdent(column.name)}))::BIGINT from ${quoteIdent(table)}`),
  );
  const longest = Number(result.getRows()[0]?.[0] ?? 0);
  if (longest > MAX_KEY_CHARS) {
    throw new ConnectorError(
      `key column "${column.name}" has a value of ${longest} ${isText ? 'characters' : 'bytes'}; a MySQL key holds at most ${MAX_KEY_CHARS}`,
      'config_error',
    );
  }
  const length = Math.max(MIN_KEY_CHARS, longest);
  return isText ? `VARCHAR(${length})` : `VARBINARY(${length})`;
}
