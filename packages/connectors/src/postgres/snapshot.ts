/** What every postgres read and write opens its transaction with: text forms that no server or role setting changes. */

/**
 * One read-only snapshot, with text forms that do not depend on the server's, the database's or the role's settings:
 * UTC offsets, ISO dates, PostgreSQL's own interval style, shortest exact floats. Both the typed read (into DuckDB)
 * and the CSV hand-off (COPY to COPY) read under it, so a source whose database prints `DMY` dates or rounded floats
 * arrives the same either way. One simple query (no parameters), so one round trip.
 */
export const BEGIN_SNAPSHOT =
  `begin isolation level repeatable read read only; ` +
  `set local timezone = 'UTC'; set local datestyle = 'ISO, YMD'; set local intervalstyle = 'postgres'; ` +
  `set local extra_float_digits = 3`;

/**
 * How a write's session reads CSV text, whatever the target's or the role's settings: a timestamp without zone going
 * into a timestamptz column is UTC (as DuckDB's casts have it), intervals are read field by field with their signs.
 * One simple query: begin and the settings in one round trip.
 */
export const BEGIN_WRITE = `begin; set local timezone = 'UTC'; set local intervalstyle = 'postgres'`;
