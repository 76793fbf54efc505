/**
 * DuckDB column types as PostgreSQL's, for the typed sink: the type a column gets when the sink creates or adds it,
 * and a DuckDB expression that prints each value in the text form PostgreSQL's input function for that type reads
 * back exactly (the values travel as COPY CSV). docs/type-mapping.md has the same table: keep the two in step.
 */
import { DuckDBTypeId, type DuckDBType } from '@duckdb/node-api';
import { utcTimestamptzText } from '../duckdb/timestamptz-text.js';
import { sqlString } from './pg-types.js';

export interface PgColumnMapping {
  /** The PostgreSQL type for CREATE TABLE / ADD COLUMN, e.g. `numeric(12,2)`, `text[]`, `jsonb`. */
  pgType: string;
  /** DuckDB SQL that turns the DuckDB SQL `value` into PostgreSQL's text for it; NULL stays NULL. */
  text(value: string): string;
}

const asText = (value: string): string => `cast(${value} as varchar)`;
const plain = (pgType: string): PgColumnMapping => ({ pgType, text: asText });

/** Nested values (lists of lists, structs, maps, unions) and lists into json columns: DuckDB's own JSON. */
export const JSONB: PgColumnMapping = { pgType: 'jsonb', text: (value) => `cast(to_json(${value}) as varchar)` };
/** Types PostgreSQL has no counterpart for (GEOMETRY, VARIANT...) are written as DuckDB prints them. */
const FALLBACK = plain('text');

// The lambda's parameter: a name no user column is likely to have, as it hides one of the same name.
const ELEMENT = 'conduit_element';

function scalar(type: DuckDBType): PgColumnMapping | undefined {
  switch (type.typeId) {
    case DuckDBTypeId.BOOLEAN:
      return plain('boolean');
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.SMALLINT:
      return plain('smallint');
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.INTEGER:
      return plain('integer');
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.BIGINT:
      return plain('bigint');
    // The widest unsigned values need numeric: 20 digits for UBIGINT, 39 for (U)HUGEINT.
    case DuckDBTypeId.UBIGINT:
      return plain('numeric(20,0)');
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UHUGEINT:
      return plain('numeric(39,0)');
    case DuckDBTypeId.BIGNUM:
      return plain('numeric');
    case DuckDBTypeId.DECIMAL:
      return plain(`numeric(${type.width},${type.scale})`);
    // DuckDB prints the shortest text that reads back to the same float, and -0.0, nan, inf, -inf, which PostgreSQL reads.
    case DuckDBTypeId.FLOAT:
      return plain('real');
    case DuckDBTypeId.DOUBLE:
      return plain('double precision');
    case DuckDBTypeId.VARCHAR:
      return plain(type.alias === 'JSON' ? 'jsonb' : 'text');
    case DuckDBTypeId.ENUM:
      return plain('text');
    case DuckDBTypeId.UUID:
      return plain('uuid');
    case DuckDBTypeId.BLOB:
      return { pgType: 'bytea', text: (value) => `'\\x' || hex(${value})` };
    case DuckDBTypeId.BIT:
      return plain('bit varying');
    // Dates and timestamps before year 1 print as "... (BC)", which PostgreSQL reads; infinity too.
    case DuckDBTypeId.DATE:
      return plain('date');
    case DuckDBTypeId.TIME:
    case DuckDBTypeId.TIME_NS:
      return plain('time');
    case DuckDBTypeId.TIME_TZ:
      return plain('time with time zone');
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_NS:
      return plain('timestamp');
    case DuckDBTypeId.TIMESTAMP_S:
      return plain('timestamp(0)');
    case DuckDBTypeId.TIMESTAMP_MS:
      return plain('timestamp(3)');
    case DuckDBTypeId.TIMESTAMP_TZ:
      // The instant in UTC with an explicit +00, whatever DuckDB's TimeZone setting (epoch_us does not depend on it).
      return { pgType: 'timestamp with time zone', text: utcTimestamptzText };
    // DuckDB's interval is PostgreSQL's (months, days, microseconds), printed field by field with their signs.
    case DuckDBTypeId.INTERVAL:
      return plain('interval');
    default:
      return undefined;
  }
}

/** A PostgreSQL array literal: every element quoted (with `\` and `"` escaped) or NULL. */
function arrayLiteral(value: string, element: PgColumnMapping): string {
  const quoted = `'"' || replace(replace(${element.text(ELEMENT)}, '\\', '\\\\'), '"', '\\"') || '"'`;
  const each = `case when ${ELEMENT} is null then 'NULL' else ${quoted} end`;
  return `'{' || array_to_string(list_transform(${value}, lambda ${ELEMENT}: ${each}), ',') || '}'`;
}

/** How a DuckDB column is written to PostgreSQL. */
export function pgColumnOf(type: DuckDBType): PgColumnMapping {
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
    case DuckDBTypeId.ARRAY: {
      // A list of scalars is a PostgreSQL array; a list of lists or structs is JSON (PostgreSQL arrays are rectangular).
      const element = scalar(type.valueType);
      return element ? { pgType: `${element.pgType}[]`, text: (value) => arrayLiteral(value, element) } : JSONB;
    }
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.MAP:
    case DuckDBTypeId.UNION:
      return JSONB;
    default:
      return scalar(type) ?? FALLBACK;
  }
}

const NESTED = new Set<DuckDBTypeId>([
  DuckDBTypeId.LIST,
  DuckDBTypeId.ARRAY,
  DuckDBTypeId.STRUCT,
  DuckDBTypeId.MAP,
  DuckDBTypeId.UNION,
]);

/** The scale of a `numeric(p,s)` as format_type names it; undefined for an unbounded numeric or another type. */
export function numericScaleOf(pgType: string): number | undefined {
  const match = /^numeric\(\d+,(-?\d+)\)$/.exec(pgType);
  return match ? Number(match[1]) : undefined;
}

/** Why a value cannot go into a `numeric(p,s)` column (`targetType`) as it is: PostgreSQL would round it. */
export function roundingMessage(column: string, targetType: string): string {
  return (
    `column "${column}" holds a value with more than ${numericScaleOf(targetType)} decimal places, which the target ` +
    `column (${targetType}) would round: widen the column (e.g. to numeric) or round the value in a transform`
  );
}

/**
 * How a DuckDB column is written into an existing PostgreSQL column of type `targetType` (as format_type names it):
 * PostgreSQL casts the text to the target's type, so only nested values going into json or jsonb need another form.
 * A DECIMAL with more decimal places than a `numeric(p,s)` target would be rounded by PostgreSQL without a word: a
 * value that would lose a digit fails the export instead (DuckDB's error()), naming the column; values that fit pass.
 */
export function pgColumnInto(type: DuckDBType, targetType: string, column: string): PgColumnMapping {
  if (NESTED.has(type.typeId) && (targetType === 'json' || targetType === 'jsonb')) return JSONB;
  const targetScale = numericScaleOf(targetType);
  if (type.typeId === DuckDBTypeId.DECIMAL && targetScale !== undefined && targetScale < type.scale) {
    const message = sqlString(roundingMessage(column, targetType));
    return {
      pgType: targetType,
      text: (value) =>
        `case when ${value} = round(${value}, ${targetScale}) then cast(${value} as varchar) ` +
        `when ${value} is null then null else error(${message}) end`,
    };
  }
  return pgColumnOf(type);
}
