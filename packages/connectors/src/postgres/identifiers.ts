/** Safe SQL identifiers: every name we put in SQL goes through here. */
import { escapeIdentifier } from 'pg';
import { ConnectorError } from '../connector-error.js';

export const quoteIdent = (name: string): string => escapeIdentifier(name);

export interface TableName {
  schema: string;
  table: string;
}

/** `schema.table` names both; a bare `table` takes `defaultSchema`. Quoted names with dots are not supported. */
export function parseTableName(name: string, defaultSchema: string): TableName {
  const dot = name.indexOf('.');
  const parsed =
    dot < 0 ? { schema: defaultSchema, table: name } : { schema: name.slice(0, dot), table: name.slice(dot + 1) };
  if (parsed.schema === '' || parsed.table === '')
    throw new ConnectorError(`invalid table name "${name}"`, 'config_error');
  return parsed;
}

export function qualifiedTable(name: string, defaultSchema: string): string {
  const { schema, table } = parseTableName(name, defaultSchema);
  return `${quoteIdent(schema)}.${quoteIdent(table)}`;
}
