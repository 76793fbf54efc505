import type { ConnectorDriver, Row } from '../../src/index.js';

/** The given batches, as a source hands them to a driver's write. */
export async function* batchesOf(...batches: Row[][]): AsyncGenerator<Row[]> {
  for (const batch of batches) yield batch;
}

/** The rows cut into batches of `size`, as a source hands them to a driver's write. */
export async function* inBatches(rows: Row[], size: number): AsyncGenerator<Row[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

/** Everything a driver's read yields: the size of each batch, and the rows. */
export async function readBatches(
  driver: Pick<Required<ConnectorDriver>, 'read'>,
  config: Record<string, unknown>,
  req: Record<string, unknown>,
): Promise<{ sizes: number[]; rows: Row[] }> {
  const sizes: number[] = [];
  const rows: Row[] = [];
  for await (const batch of driver.read(config, req)) {
    sizes.push(batch.length);
    rows.push(...batch);
  }
  return { sizes, rows };
}
