/**
 * What a MySQL/MariaDB result column becomes in DuckDB (docs/type-mapping.md, MySQL section), decided from the
 * server's field metadata (type, length, decimals, flags, character set), never from values. Each column also says how
 * its values are written to the CSV file DuckDB reads, and which values it refuses rather than changing them.
 */
import type { FieldPacket } from 'mysql2';
import { ConnectorError } from '../connector-error.js';
import type { ColumnSpec } from '../types.js';

// Field types of the protocol (include/mysql_com.h) and the flags we look at.
const T = {
  DECIMAL: 0,
  TINY: 1,
  SHORT: 2,
  LONG: 3,
  FLOAT: 4,
  DOUBLE: 5,
  NULL: 6,
  TIMESTAMP: 7,
  LONGLONG: 8,
  INT24: 9,
  DATE: 10,
  TIME: 11,
  DATETIME: 12,
  YEAR: 13,
  NEWDATE: 14,
  VARCHAR: 15,
  BIT: 16,
  JSON: 245,
  NEWDECIMAL: 246,
  ENUM: 247,
  SET: 248,
  TINY_BLOB: 249,
  MEDIUM_BLOB: 250,
  LONG_BLOB: 251,
  BLOB: 252,
  VAR_STRING: 253,
  STRING: 254,
  GEOMETRY: 255,
} as const;
const UNSIGNED_FLAG = 32;

/** The parts of mysql2's field metadata the mapping reads. */
export type FieldMeta = Pick<
  FieldPacket,
  'name' | 'columnType' | 'columnLength' | 'decimals' | 'flags' | 'characterSet' | 'extendedFormat' | 'extendedTypeName'
>;
const BINARY_CHARSET = 63;
/** DuckDB's widest DECIMAL. */
const DUCKDB_MAX_PRECISION = 38;

/** How a value travels: as the server's text, as bytes (hex in the file), or decoded from a BIT field. */
export type ValueSource = 'text' | 'bytes' | 'bit';

export interface TypedColumn extends ColumnSpec {
  source: ValueSource;
  /** The CSV field for a non-NULL value (already quoted where needed); throws a ConnectorError for a refused value. */
  encode(value: string | Buffer): string;
}

const quoted = (text: string): string => `"${text.replace(/"/g, '""')}"`;

function refuse(column: string, sourceType: string, value: string, why: string): never {
  throw new ConnectorError(
    `column "${column}" (${sourceType}) has the value ${JSON.stringify(value)}, which ${why}`,
    'config_error',
  );
}

function flagsOf(field: FieldMeta): number {
  return typeof field.flags === 'number' ? field.flags : 0;
}

/** DECIMAL(p,s) from the column length the server reports: p digits, plus one for a point and one for a sign. */
function decimalPrecision(field: FieldMeta, unsigned: boolean): number {
  const length = field.columnLength ?? 0;
  return length - (field.decimals > 0 ? 1 : 0) - (unsigned ? 0 : 1);
}

const asText = (value: string | Buffer): string => (typeof value === 'string' ? value : value.toString('utf8'));

function plain(name: string, type: string, sourceType: string, source: ValueSource = 'text'): TypedColumn {
  if (source === 'bytes')
    return { name, type, source_type: sourceType, source, encode: (v) => quoted(Buffer.from(v).toString('hex')) };
  return { name, type, source_type: sourceType, source, encode: (v) => quoted(asText(v)) };
}

function integer(
  name: string,
  signed: string,
  unsignedType: string,
  sourceType: string,
  unsigned: boolean,
): TypedColumn {
  return plain(name, unsigned ? unsignedType : signed, unsigned ? `${sourceType} unsigned` : sourceType);
}

/** MySQL's BOOL is TINYINT(1): read as BOOLEAN, but a value other than 0 or 1 fails rather than becoming true. */
function boolean(name: string): TypedColumn {
  return {
    name,
    type: 'BOOLEAN',
    source_type: 'tinyint(1)',
    source: 'text',
    encode(v) {
      const text = asText(v);
      if (text === '0') return 'false';
      if (text === '1') return 'true';
      return refuse(
        name,
        'tinyint(1)',
        text,
        `is not 0 or 1 (read as BOOLEAN): select CAST(${name} AS SIGNED) to keep it`,
      );
    },
  };
}

function decimal(name: string, field: FieldMeta, unsigned: boolean): TypedColumn {
  const precision = decimalPrecision(field, unsigned);
  const scale = field.decimals;
  const sourceType = `decimal(${precision},${scale})${unsigned ? ' unsigned' : ''}`;
  if (precision <= DUCKDB_MAX_PRECISION) return plain(name, `DECIMAL(${precision},${scale})`, sourceType);
  // Wider than DuckDB's DECIMAL(38): keep the scale, and refuse a value with more integer digits than are left.
  const integerDigits = DUCKDB_MAX_PRECISION - scale;
  return {
    name,
    type: `DECIMAL(${DUCKDB_MAX_PRECISION},${scale})`,
    source_type: sourceType,
    source: 'text',
    encode(v) {
      const text = asText(v);
      const digits = text.replace(/^-/, '').split('.')[0]!.replace(/^0+/, '').length;
      if (digits > integerDigits) {
        refuse(
          name,
          sourceType,
          text,
          `does not fit DuckDB's DECIMAL(38,${scale}): cast it in the query, e.g. CAST(${name} AS DECIMAL(38,${Math.min(scale, 10)}))`,
        );
      }
      return quoted(text);
    },
  };
}

/** MySQL allows '0000-00-00' and dates with a zero month or day; DuckDB has no such dates: the read fails. */
function dateLike(name: string, type: string, sourceType: string, suffix = ''): TypedColumn {
  return {
    name,
    type,
    source_type: sourceType,
    source: 'text',
    encode(v) {
      const text = asText(v);
      if (/^\d{4}-(00-|\d\d-00)/.test(text) || text.startsWith('0000-')) {
        refuse(
          name,
          sourceType,
          text,
          `is a zero date, which DuckDB has no value for: select NULLIF(${name}, '0000-00-00') or fix the data`,
        );
      }
      return quoted(text + suffix);
    },
  };
}

/** MySQL's TIME is also a duration (-838:59:59 to 838:59:59); DuckDB's TIME is a time of day. */
function timeOfDay(name: string, sourceType: string): TypedColumn {
  return {
    name,
    type: 'TIME',
    source_type: sourceType,
    source: 'text',
    encode(v) {
      const text = asText(v);
      if (text.startsWith('-') || Number(text.split(':')[0]) >= 24) {
        refuse(
          name,
          sourceType,
          text,
          `is not a time of day (DuckDB's TIME): select CAST(${name} AS CHAR) to read durations as text`,
        );
      }
      return quoted(text);
    },
  };
}

/** BIT(1) is a flag (BOOLEAN); BIT(n) a number of up to 64 bits (UBIGINT), sent big-endian. */
function bit(name: string, bits: number): TypedColumn {
  const sourceType = `bit(${bits})`;
  const value = (v: string | Buffer): bigint => {
    let n = 0n;
    for (const byte of Buffer.from(v)) n = (n << 8n) | BigInt(byte);
    return n;
  };
  if (bits === 1)
    return {
      name,
      type: 'BOOLEAN',
      source_type: sourceType,
      source: 'bit',
      encode: (v) => (value(v) === 0n ? 'false' : 'true'),
    };
  return { name, type: 'UBIGINT', source_type: sourceType, source: 'bit', encode: (v) => value(v).toString() };
}

/** The DuckDB column for one result field. */
export function typedColumn(field: FieldMeta): TypedColumn {
  const { name } = field;
  const type = field.columnType ?? -1;
  const unsigned = (flagsOf(field) & UNSIGNED_FLAG) !== 0;
  const binary = (field.characterSet ?? BINARY_CHARSET) === BINARY_CHARSET;
  const fractional = field.decimals > 0 && field.decimals <= 6 ? `(${field.decimals})` : '';
  switch (type) {
    case T.TINY:
      return field.columnLength === 1 && !unsigned
        ? boolean(name)
        : integer(name, 'TINYINT', 'UTINYINT', 'tinyint', unsigned);
    case T.SHORT:
      return integer(name, 'SMALLINT', 'USMALLINT', 'smallint', unsigned);
    case T.INT24:
      return integer(name, 'INTEGER', 'UINTEGER', 'mediumint', unsigned);
    case T.LONG:
      return integer(name, 'INTEGER', 'UINTEGER', 'int', unsigned);
    case T.LONGLONG:
      return integer(name, 'BIGINT', 'UBIGINT', 'bigint', unsigned);
    case T.DECIMAL:
    case T.NEWDECIMAL:
      return decimal(name, field, unsigned);
    case T.FLOAT:
      return plain(name, 'FLOAT', 'float');
    case T.DOUBLE:
      return plain(name, 'DOUBLE', 'double');
    case T.YEAR:
      return plain(name, 'SMALLINT', 'year');
    case T.DATE:
    case T.NEWDATE:
      return dateLike(name, 'DATE', 'date');
    case T.DATETIME:
      return dateLike(name, 'TIMESTAMP', `datetime${fractional}`);
    case T.TIMESTAMP:
      // The session's time_zone is UTC, so the server's text is UTC: say so to DuckDB.
      return dateLike(name, 'TIMESTAMP WITH TIME ZONE', `timestamp${fractional}`, '+00');
    case T.TIME:
      return timeOfDay(name, `time${fractional}`);
    case T.BIT:
      return bit(name, field.columnLength ?? 1);
    case T.JSON:
      return plain(name, 'JSON', 'json');
    case T.NULL:
      return plain(name, 'VARCHAR', 'null');
    case T.GEOMETRY:
      return plain(name, 'BLOB', 'geometry', 'bytes');
    case T.ENUM:
    case T.SET:
    case T.VARCHAR:
    case T.VAR_STRING:
    case T.STRING:
    case T.TINY_BLOB:
    case T.MEDIUM_BLOB:
    case T.LONG_BLOB:
    case T.BLOB:
      return stringLike(name, field, binary);
    default:
      throw new ConnectorError(
        `column "${name}" has a MySQL type (${type}) that has no DuckDB mapping: cast it in the query`,
        'config_error',
      );
  }
}

/** The family name of a string column (the declared length is not in the metadata in characters). */
function stringTypeName(type: number, binary: boolean): string {
  if (type === T.STRING) return binary ? 'binary' : 'char';
  if (type === T.VAR_STRING || type === T.VARCHAR) return binary ? 'varbinary' : 'varchar';
  return binary ? 'blob' : 'text';
}

function stringLike(name: string, field: FieldMeta, binary: boolean): TypedColumn {
  const typeName = stringTypeName(field.columnType ?? T.BLOB, binary);
  if (binary) return plain(name, 'BLOB', typeName, 'bytes');
  // MariaDB's JSON is LONGTEXT with a json_valid check; its extended metadata says so.
  if (field.extendedFormat === 'json') return plain(name, 'JSON', 'json');
  const flags = flagsOf(field);
  if (flags & 256) return plain(name, 'VARCHAR', 'enum');
  if (flags & 2048) return plain(name, 'VARCHAR', 'set');
  if (field.extendedTypeName === 'uuid') return plain(name, 'UUID', 'uuid');
  return plain(name, 'VARCHAR', field.extendedTypeName ?? typeName);
}

/** The columns of a result, refusing names DuckDB could not hold twice in one table. */
export function typedColumns(fields: readonly FieldMeta[]): TypedColumn[] {
  const seen = new Set<string>();
  return fields.map((field) => {
    const key = field.name.toLowerCase();
    if (seen.has(key))
      throw new ConnectorError(
        `the query returns the column name "${field.name}" twice: give one an alias`,
        'config_error',
      );
    seen.add(key);
    return typedColumn(field);
  });
}
