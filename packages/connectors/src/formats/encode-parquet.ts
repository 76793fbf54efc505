/**
 * Parquet encoding with hyparquet-writer: the schema comes from the first batch's values (all columns optional),
 * rows are gathered into row groups of up to ROW_GROUP_ROWS and each group's bytes are handed on once written.
 */
import { ByteWriter, ParquetWriter, schemaFromColumnData, type BasicType } from 'hyparquet-writer';
import { ConnectorError } from '../connector-error.js';
import { columnsOf } from '../postgres/copy-csv.js';
import type { Row } from '../types.js';
import { checkColumns } from './row-columns.js';
import { scalarText } from './scalar-text.js';

const ROW_GROUP_ROWS = 50_000;

/** The Parquet type a column takes, from its first non-null value in the batch. */
function typeOf(rows: readonly Row[], column: string): BasicType {
  const value = rows.find((row) => row[column] !== null && row[column] !== undefined)?.[column];
  switch (typeof value) {
    case 'number':
      return 'DOUBLE';
    case 'bigint':
      return 'INT64';
    case 'boolean':
      return 'BOOLEAN';
    case 'object':
      if (value instanceof Date) return 'TIMESTAMP';
      if (value instanceof Uint8Array) return 'BYTE_ARRAY';
      return 'JSON';
    default:
      return 'STRING';
  }
}

/** A value as its column's type expects it; anything that does not fit a numeric or boolean column is an error. */
function toParquetValue(value: unknown, type: BasicType, column: string): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'STRING':
      if (typeof value === 'string') return value;
      if (value instanceof Date) return value.toISOString();
      return scalarText(value);
    case 'DOUBLE':
      if (typeof value === 'number') return value;
      if (typeof value === 'bigint') return Number(value);
      break;
    case 'INT64':
      if (typeof value === 'bigint') return value;
      if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
      break;
    case 'BOOLEAN':
      if (typeof value === 'boolean') return value;
      break;
    case 'TIMESTAMP':
      if (value instanceof Date) return value;
      break;
    case 'BYTE_ARRAY':
      if (value instanceof Uint8Array) return value;
      break;
    default:
      return value;
  }
  throw new ConnectorError(
    `column "${column}" is ${type} but a row has ${typeof value} ${scalarText(value)}`,
    'config_error',
  );
}

/** A ByteWriter whose bytes are taken out after each row group. */
class ChunkedWriter extends ByteWriter {
  readonly chunks: Uint8Array[] = [];
  flush(): void {
    this.chunks.push(this.getBytes().slice());
    this.index = 0;
  }
  override finish(): void {
    this.flush();
  }
  take(): Uint8Array[] {
    return this.chunks.splice(0);
  }
}

export async function* encodeParquet(
  batches: AsyncIterable<Row[]>,
  onRows?: (count: number) => void,
): AsyncGenerator<Uint8Array> {
  let columns: { name: string; type: BasicType }[] | undefined;
  let known = new Set<string>();
  let parquet: ParquetWriter | undefined;
  const writer = new ChunkedWriter();
  let pending: Row[] = [];

  const writeGroup = function* (): Generator<Uint8Array> {
    if (!parquet || !columns || pending.length === 0) return;
    const rows = pending;
    pending = [];
    const columnData = columns.map(({ name, type }) => ({
      name,
      data: rows.map((row) => toParquetValue(row[name], type, name)),
    }));
    // The ChunkedWriter is a synchronous ByteWriter: write and finish return no promise with it.
    void parquet.write({ columnData, rowGroupSize: rows.length });
    yield* writer.take();
  };

  for await (const batch of batches) {
    if (batch.length === 0) continue;
    if (!columns) {
      columns = columnsOf(batch).map((name) => ({ name, type: typeOf(batch, name) }));
      known = new Set(columns.map((c) => c.name));
      const schema = schemaFromColumnData({
        columnData: columns.map(({ name, type }) => ({ name, type, nullable: true, data: [] })),
      });
      parquet = new ParquetWriter({ writer, schema });
    }
    checkColumns(batch, known);
    pending.push(...batch);
    onRows?.(batch.length);
    if (pending.length >= ROW_GROUP_ROWS) yield* writeGroup();
  }
  if (!parquet) return; // no rows: no file (a Parquet file needs a schema)
  yield* writeGroup();
  void parquet.finish();
  yield* writer.take();
}
