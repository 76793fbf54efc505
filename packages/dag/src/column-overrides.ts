// A source node's `columns`: `{ "<column>": "<DuckDB type>" }`, the types a file, S3 or HTTP source's columns get
// instead of what DuckDB's sniffer would decide. The same check runs at save (validation) and in the connector at run
// time; the type text later goes into DuckDB SQL, so only the characters a type name needs are allowed.

/** Letters, digits, spaces, parentheses, commas and brackets: `DECIMAL(12,2)`, `VARCHAR[]`, `STRUCT(a INTEGER)`. */
export const COLUMN_TYPE_PATTERN = /^[A-Za-z0-9 (),[\]]+$/;
/** Longer than any type a user writes by hand; bounds what reaches the type parser. */
export const COLUMN_TYPE_MAX_LENGTH = 200;

export interface ColumnOverrideProblem {
  /** The column at fault; undefined when `columns` itself is wrong. */
  column?: string;
  /** What is wrong, to follow the setting's name: `columns.amount must be a DuckDB type...`. */
  message: string;
}

const show = (text: string): string => JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}...` : text);

/** Every problem of a `columns` value (absent is fine); each names its column. */
export function columnOverrideProblems(value: unknown): ColumnOverrideProblem[] {
  if (value === undefined) return [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return [{ message: 'must be an object mapping column names to DuckDB types, e.g. {"amount": "DECIMAL(12,2)"}' }];
  }
  const problems: ColumnOverrideProblem[] = [];
  for (const [column, type] of Object.entries(value as Record<string, unknown>)) {
    if (column.trim() === '') problems.push({ column, message: 'is not a column name: names must not be empty' });
    else if (typeof type !== 'string' || type.trim() === '') {
      problems.push({ column, message: 'must be a DuckDB type as a non-empty string, e.g. "BIGINT"' });
    } else if (type.length > COLUMN_TYPE_MAX_LENGTH || !COLUMN_TYPE_PATTERN.test(type)) {
      problems.push({
        column,
        message: `must be a DuckDB type: only letters, digits, spaces, parentheses, commas and brackets, at most ${COLUMN_TYPE_MAX_LENGTH} characters (got ${show(type)})`,
      });
    }
  }
  return problems;
}
