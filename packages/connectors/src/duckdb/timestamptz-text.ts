/** How the platform prints a TIMESTAMP WITH TIME ZONE as text: the instant in UTC, the same whatever DuckDB's TimeZone. */

/** DuckDB SQL giving `value`'s text with an explicit `+00` (`2024-02-29 07:00:00.123456+00`); ±infinity as such, NULL as NULL. */
export function utcTimestamptzText(value: string): string {
  // epoch_us does not depend on the TimeZone setting, which a locked run's DuckDB cannot change.
  return `case when isinf(${value}) then cast(${value} as varchar) else cast(make_timestamp(epoch_us(${value})) as varchar) || '+00' end`;
}
