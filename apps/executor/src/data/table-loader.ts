/**
 * Appends batches of plain rows into one DuckDB table through the Appender API (data chunks of up to 2048 rows,
 * about a second per million rows here). Columns are inferred from the values; a later batch may add columns or
 * widen a column's type, which closes the appender, alters the table and reopens it.
 */
import duckdb from '@duckdb/node-api';
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import type { Row } from '@conduit/connectors';
import { type ColumnKind, kindOfValue, toColumnValue, widen } from './column-kinds.js';
import { quoteIdent } from './sql-names.js';

const { DuckDBDataChunk, JSToDuckDBValueConverter } = duckdb;
const CHUNK_ROWS = 2048;

interface Column {
  name: string;
  kind: ColumnKind;
  /** False while every value seen was null: the first real value then decides the type. */
  settled: boolean;
}

export class TableLoader {
  private readonly columns: Column[] = [];
  private readonly byName = new Map<string, Column>();
  private appender: DuckDBAppender | null = null;
  private created = false;
  private rows = 0;

  constructor(
    private readonly connection: DuckDBConnection,
    private readonly table: string,
  ) {}

  get rowCount(): number {
    return this.rows;
  }

  async append(batch: readonly Row[]): Promise<void> {
    if (batch.length === 0) return;
    const changes = this.planSchema(batch);
    if (!this.created || changes.length > 0) await this.applySchema(changes);
    const appender = this.appender ?? (this.appender = await this.connection.createAppender(this.table));
    for (let start = 0; start < batch.length; start += CHUNK_ROWS) {
      const part = batch.slice(start, start + CHUNK_ROWS);
      const types = this.columns.map((_, i) => appender.columnType(i));
      const chunk = DuckDBDataChunk.create(types, part.length);
      const values = this.columns.map((col) => part.map((row) => toColumnValue(row[col.name], col.kind)));
      chunk.setColumnsConverted(values as never, JSToDuckDBValueConverter);
      appender.appendDataChunk(chunk);
    }
    appender.flushSync();
    this.rows += batch.length;
  }

  /** Closes the appender; a source that read no rows still gets a table (with no columns known, one null column). */
  async finish(): Promise<number> {
    this.closeAppender();
    if (!this.created) {
      await this.connection.run(`create or replace table ${quoteIdent(this.table)} ("_empty" integer)`);
      this.created = true;
    }
    return this.rows;
  }

  /** Releases the appender without flushing more (after a failure or an abort). */
  abandon(): void {
    try {
      this.appender?.clear();
      this.closeAppender();
    } catch {
      // The connection may already be gone.
    }
  }

  private closeAppender(): void {
    this.appender?.closeSync();
    this.appender = null;
  }

  /** New columns (added) and columns whose type must change, from this batch's values. */
  private planSchema(batch: readonly Row[]): { column: Column; added: boolean; retype: boolean }[] {
    const changes = new Map<string, { column: Column; added: boolean; retype: boolean }>();
    for (const row of batch) {
      for (const name in row) {
        const value = row[name];
        let column = this.byName.get(name);
        if (!column) {
          column = { name, kind: 'VARCHAR', settled: false };
          this.byName.set(name, column);
          this.columns.push(column);
          changes.set(name, { column, added: true, retype: false });
        }
        if (value === null || value === undefined) continue;
        const kind = kindOfValue(value);
        const next = column.settled ? widen(column.kind, kind) : kind;
        if (next !== column.kind || !column.settled) {
          const change = changes.get(name) ?? { column, added: false, retype: false };
          change.retype = change.retype || next !== column.kind;
          column.kind = next;
          column.settled = true;
          changes.set(name, change);
        }
      }
    }
    return [...changes.values()];
  }

  private async applySchema(changes: { column: Column; added: boolean; retype: boolean }[]): Promise<void> {
    this.closeAppender();
    const table = quoteIdent(this.table);
    if (!this.created) {
      const list = this.columns.map((c) => `${quoteIdent(c.name)} ${c.kind}`).join(', ');
      await this.connection.run(`create or replace table ${table} (${list})`);
      this.created = true;
      return;
    }
    for (const { column, added, retype } of changes) {
      const name = quoteIdent(column.name);
      if (added) await this.connection.run(`alter table ${table} add column ${name} ${column.kind}`);
      else if (retype) await this.connection.run(`alter table ${table} alter column ${name} type ${column.kind}`);
    }
  }
}
