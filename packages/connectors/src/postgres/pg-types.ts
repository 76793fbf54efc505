/**
 * What a PostgreSQL column becomes in DuckDB (docs/type-mapping.md, "PostgreSQL -> DuckDB"), decided from the type
 * OID and typmod of the query's RowDescription and, for types that are not built in (enums, domains, arrays,
 * extensions' types), from pg_type. Each column also says how its value travels: a PostgreSQL expression that prints
 * a text form DuckDB's CSV reader parses exactly, the type the reader parses it as, and DuckDB's expression that
 * turns it into the column's value.
 */
import { ConnectorError } from '../connector-error.js';

/** A column of the query's RowDescription. */
export interface PgField {
  name: string;
  oid: number;
  typmod: number;
}

/** A pg_type row, for a type that is not built in (and, recursively, the element of an array and the base of a domain). */
export interface PgTypeRow {
  oid: number;
  typname: string;
  /** b base, d domain, e enum, c composite, r range, m multirange, p pseudo. */
  typtype: string;
  /** 'A' for arrays. */
  typcategory: string;
  typelem: number;
  typbasetype: number;
  typtypmod: number;
}

/**
 * How one column is declared and moved. `pg` and `duck` take a reference to the value (an expression); `duck` also
 * the column's name and PostgreSQL type, for the errors it raises.
 */
export interface ColumnPlan {
  /** DuckDB's type, or VARCHAR for an unbounded numeric until its values decide (see `unboundedNumeric`). */
  duckType: string;
  /** The type DuckDB's CSV reader parses the field as. */
  csvType: string;
  pg(ref: string): string;
  duck(ref: string, column: string): string;
  /** numeric without precision: loaded as its exact text, then made DECIMAL(38,s) when every value fits. */
  unboundedNumeric: boolean;
}

export const sqlString = (text: string): string => `'${text.replace(/'/g, "''")}'`;
const same = (ref: string): string => ref;
const plan = (duckType: string, more: Partial<ColumnPlan> = {}): ColumnPlan => ({
  duckType,
  csvType: duckType,
  pg: same,
  duck: same,
  unboundedNumeric: false,
  ...more,
});

/** DuckDB's widest DECIMAL. */
export const MAX_DECIMAL_PRECISION = 38;

/** numeric's typmod packs (precision << 16 | scale) + 4; the scale is an 11-bit signed number (PostgreSQL 15). */
export function numericTypmod(typmod: number): { precision: number; scale: number } | null {
  if (typmod < 4) return null;
  const packed = typmod - 4;
  const raw = packed & 0x7ff;
  return { precision: (packed >> 16) & 0xffff, scale: raw & 0x400 ? raw - 0x800 : raw };
}

function numericPlan(typmod: number): ColumnPlan {
  const declared = numericTypmod(typmod);
  if (declared) {
    // A negative scale rounds to tens (values are whole numbers of up to p - s digits); a scale over the precision
    // holds only fractions below 10^(p-s), which DECIMAL(s,s) holds too.
    const { precision, scale } = declared;
    const [p, s] = scale < 0 ? [precision - scale, 0] : [Math.max(precision, scale), scale];
    if (p <= MAX_DECIMAL_PRECISION) return decimalPlan(p, s);
  }
  return plan('VARCHAR', { unboundedNumeric: true });
}

/** DuckDB's DECIMAL up to this precision is an int64, which its CSV reader parses quickly. */
const INT64_DECIMAL_PRECISION = 18;

/**
 * DECIMAL(p,s) from PostgreSQL's exact text. Up to 18 digits DuckDB's reader parses it; wider, DuckDB's text to
 * DECIMAL cast is exact but some 50 times slower than the run of the copy, so the digits are read as one HUGEINT
 * (the unscaled value, the fraction padded to s digits) and scaled by an exact DECIMAL product. NaN and a fraction
 * longer than s (which a typmod'd numeric never has) fail, naming the column, instead of being rounded.
 */
export function decimalPlan(p: number, s: number): ColumnPlan {
  const type = `DECIMAL(${p},${s})`;
  if (p <= INT64_DECIMAL_PRECISION) return plan(type);
  return plan(type, {
    csvType: 'VARCHAR',
    duck: (ref, column) => {
      const unscaled = `CAST(CAST(split_part(${ref}, '.', 1) || rpad(split_part(${ref}, '.', 2), ${s}, '0') AS HUGEINT) AS DECIMAL(38,0))`;
      const scaled = s === 0 ? unscaled : `${unscaled} * CAST('0.${'0'.repeat(s - 1)}1' AS DECIMAL(${s},${s}))`;
      const message = sqlString(`${column} holds a value that ${type} cannot hold exactly: `);
      return `CASE WHEN length(split_part(${ref}, '.', 2)) <= ${s} AND ${ref} <> 'NaN' THEN CAST(${scaled} AS ${type}) ELSE error(${message} || ${ref}) END`;
    },
  });
}

// Dates and timestamps before year 1: PostgreSQL prints `0044-03-15 BC`, which DuckDB would read as the year 44 AD;
// DuckDB spells the era `0044-03-15 (BC)`, before the time of day. Only those rows pay for the regular expression.
const bcDate = (ref: string) =>
  `case when ${ref} < '0001-01-01'::date then regexp_replace(${ref}::text, ' BC$', ' (BC)') else ${ref}::text end`;
const bcTimestamp = (cast: string) => (ref: string) =>
  `case when ${ref} < '0001-01-01'::${cast} then regexp_replace(${ref}::text, '^(\\S+) (.*) BC$', '\\1 (BC) \\2') else ${ref}::text end`;

/**
 * An interval as its three exact parts (months, days, microseconds), which DuckDB's interval holds alike; DuckDB's
 * interval text parser cannot take every microsecond count PostgreSQL holds (not -2^63), its constructors can.
 */
const intervalParts = (ref: string) =>
  `(extract(year from ${ref}) * 12 + extract(month from ${ref}))::bigint || ' ' || extract(day from ${ref})::bigint || ' ' ||` +
  ` (extract(hour from ${ref}) * 3600000000 + extract(minute from ${ref}) * 60000000 + extract(microseconds from ${ref}))::bigint`;
const intervalOfParts = (ref: string) =>
  `to_months(split_part(${ref}, ' ', 1)::INTEGER) + to_days(split_part(${ref}, ' ', 2)::INTEGER) + to_microseconds(split_part(${ref}, ' ', 3)::BIGINT)`;

/** What a server decides of a type's values: money's decimal places come from its lc_monetary. */
export interface ServerTypes {
  moneyScale: number;
}

export const DEFAULT_SERVER_TYPES: ServerTypes = { moneyScale: 2 };

/** PostgreSQL's money (and its array): their plan needs the server's decimal places (ServerTypes). */
export const MONEY_OIDS: ReadonlySet<number> = new Set([790, 791]);

/** Built-in scalar types by OID (pg_type.h). Anything else is looked up in pg_type. */
function builtinPlan(oid: number, typmod: number, server: ServerTypes = DEFAULT_SERVER_TYPES): ColumnPlan | undefined {
  switch (oid) {
    case 16:
      return plan('BOOLEAN');
    case 21:
      return plan('SMALLINT');
    case 23:
      return plan('INTEGER');
    case 20:
      return plan('BIGINT');
    case 26:
      return plan('UINTEGER'); // oid
    case 700:
      return plan('FLOAT');
    case 701:
      return plan('DOUBLE');
    case 1700:
      return numericPlan(typmod);
    case 18:
    case 19:
    case 25:
    case 1042:
    case 1043:
      return plan('VARCHAR'); // "char", name, text, char(n), varchar(n)
    case 1082:
      return plan('DATE', { pg: bcDate });
    case 1114:
      return plan('TIMESTAMP', { pg: bcTimestamp('timestamp') });
    case 1184:
      return plan('TIMESTAMP WITH TIME ZONE', { pg: bcTimestamp('timestamptz') });
    case 1083:
      return plan('TIME');
    case 1266:
      return plan('TIME WITH TIME ZONE');
    case 1186:
      return plan('INTERVAL', { csvType: 'VARCHAR', pg: intervalParts, duck: intervalOfParts });
    case 2950:
      return plan('UUID');
    case 114:
    case 3802:
      return plan('JSON', { csvType: 'VARCHAR', duck: (ref) => `CAST(${ref} AS JSON)` });
    case 17:
      return plan('BLOB', { csvType: 'VARCHAR', pg: (ref) => `encode(${ref}, 'hex')`, duck: (ref) => `unhex(${ref})` });
    case 790:
      // money: its text is the server's lc_monetary format ($1,234.56, 1.234,56 €); its numeric is exact, with the
      // locale's decimal places. An int64 of the smallest unit is at most 19 digits.
      return { ...decimalPlan(19, server.moneyScale), pg: (ref) => `${ref}::numeric` };
    default:
      return undefined;
  }
}

const text = (): ColumnPlan => plan('VARCHAR', { pg: (ref) => `${ref}::text` });

/** A type's plan from pg_type rows; domains resolve to their base type, arrays to a LIST of their element's plan. */
export function columnPlan(
  oid: number,
  typmod: number,
  catalog: ReadonlyMap<number, PgTypeRow>,
  server: ServerTypes = DEFAULT_SERVER_TYPES,
  depth = 0,
): ColumnPlan {
  const builtin = builtinPlan(oid, typmod, server);
  if (builtin) return builtin;
  const row = catalog.get(oid);
  if (!row || depth > 32) return text();
  if (row.typtype === 'd') return columnPlan(row.typbasetype, row.typtypmod, catalog, server, depth + 1);
  // Enums keep their labels as text: a DuckDB ENUM would tie every downstream table to the label list of today.
  if (row.typtype === 'e') return text();
  if (row.typcategory === 'A' && row.typelem !== 0)
    return listPlan(columnPlan(row.typelem, typmod, catalog, server, depth + 1));
  return text();
}

/**
 * An array travels as a JSON array of its elements' text forms (each made exact like a column's), which DuckDB
 * decodes to VARCHAR[] and casts element by element. A multi-dimensional array has no DuckDB type known in advance:
 * it fails the read, naming its column, rather than being flattened.
 */
function listPlan(element: ColumnPlan): ColumnPlan {
  // An unbounded numeric element keeps its exact text: a list's scale cannot follow its values.
  const elementType = element.unboundedNumeric ? 'VARCHAR' : element.duckType;
  const elementDuck = (column: string) => element.duck('e', `an element of ${column}`);
  return {
    duckType: `${elementType}[]`,
    csvType: 'VARCHAR',
    unboundedNumeric: false,
    // array_ndims is NULL for NULL and for the empty array alike: NULL is tested first.
    pg: (ref) =>
      `case when ${ref} is null then null when array_ndims(${ref}) > 1 then '${MULTI_DIM_MARK}' else` +
      ` coalesce((select json_agg((${element.pg('e')})::text order by i) from unnest(${ref}) with ordinality as u(e, i))::text, '[]') end`,
    duck: (ref, column) => {
      const decoded = `from_json(${ref}, '["VARCHAR"]')`;
      const converted =
        elementDuck(column) === 'e' ? decoded : `list_transform(${decoded}, e -> ${elementDuck(column)})`;
      return `CAST(${converted} AS ${elementType}[])`;
    },
  };
}

/** What the PostgreSQL side prints for a multi-dimensional array (never a JSON array, so never a real value). */
export const MULTI_DIM_MARK = 'multi-dimensional array';

/** Wraps a list column's DuckDB expression so a multi-dimensional array fails with a message naming its column. */
export function guardedDuck(columnPlanOf: ColumnPlan, column: string, sourceType: string, ref: string): string {
  const expr = columnPlanOf.duck(ref, `column "${column}" (${sourceType})`);
  if (!columnPlanOf.duckType.endsWith('[]')) return expr;
  const message = sqlString(
    `column "${column}" holds a multi-dimensional array, which a DuckDB list cannot hold; unnest it or select one dimension`,
  );
  return `CASE WHEN ${ref} = ${sqlString(MULTI_DIM_MARK)} THEN error(${message}) ELSE ${expr} END`;
}

/** The plan of every field, failing on names DuckDB cannot hold twice. */
export function planColumns(
  fields: readonly PgField[],
  catalog: ReadonlyMap<number, PgTypeRow>,
  server: ServerTypes = DEFAULT_SERVER_TYPES,
): ColumnPlan[] {
  const seen = new Set<string>();
  for (const { name } of fields) {
    const key = name.toLowerCase(); // DuckDB's identifiers are case-insensitive
    if (seen.has(key))
      throw new ConnectorError(
        `the query returns the column "${name}" twice: give each column its own name (as ...)`,
        'config_error',
      );
    seen.add(key);
  }
  return fields.map((f) => columnPlan(f.oid, f.typmod, catalog, server));
}

/** OIDs of the fields that are not built in, to look up in pg_type. */
export function unknownOids(fields: readonly PgField[]): number[] {
  return [...new Set(fields.filter((f) => !builtinPlan(f.oid, f.typmod)).map((f) => f.oid))];
}
