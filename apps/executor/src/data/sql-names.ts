/** Identifier quoting for DuckDB SQL: node ids become table names, whatever characters they hold. */
export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
