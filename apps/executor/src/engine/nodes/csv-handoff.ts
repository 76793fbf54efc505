/**
 * The CSV hand-off: a source whose only consumer is a sink, both on drivers that speak COPY CSV (postgres ->
 * postgres), passes its rows as a CSV file in the run's workspace instead of a DuckDB table. The source streams
 * `COPY (query) TO STDOUT` into the file, the sink streams the file into `COPY ... FROM STDIN`: no row is turned into
 * JS values, every type keeps PostgreSQL's text form, memory stays bounded, and the nodes keep their own states,
 * attempts and timeouts as on the DuckDB path.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ConnectorDriver, CsvChunk } from '@conduit/connectors';
import type { ResolvedConnector } from '@conduit/contracts';
import type { CsvOutput } from '../../data/run-workspace.js';
import type { PlanNode, RunPlan } from '../run-plan.js';
import type { CsvHandoff, NodeContext, NodeResult } from '../node-context.js';
import { NodeFailure, messageOf } from '../node-failure.js';
import { sinkRequestOf } from './sink-request.js';
import { driverRequest } from './driver-request.js';
import { namedColumns } from '../node-columns.js';

type ConnectorLookup = (
  node: PlanNode,
  role: 'read' | 'write',
) => { connector: ResolvedConnector; driver: ConnectorDriver };

/** The sink a source can hand CSV to: its only consumer, fed by it alone, unconditionally, both drivers able. */
export function csvHandoffSink(plan: RunPlan, source: PlanNode, lookup: ConnectorLookup): PlanNode | undefined {
  if (source.node.type !== 'source' || source.outputs.length !== 1) return undefined;
  const edge = source.outputs[0]!;
  const sink = plan.byId.get(edge.to);
  // Fed by the source alone: with an ordering edge beside it (a sql node's DDL, say), the sink's target may change
  // after the source asked whether it could take CSV, and the DuckDB path makes the table fit when the sink runs.
  if (edge.when !== undefined || !sink || sink.node.type !== 'sink' || sink.inputs.length !== 1) return undefined;
  try {
    const writer = lookup(sink, 'write').driver;
    if (!lookup(source, 'read').driver.readCsv || !writer.writeCsv || !writer.csvTargetReady) return undefined;
  } catch {
    // A missing or unfit connector: the DuckDB path's runners report it as usual.
    return undefined;
  }
  return sink;
}

/**
 * Whether this attempt hands the source's rows to its sink as CSV: only when the sink's target takes them as the typed
 * write would (ConnectorDriver.csvTargetReady), else they go through the run's DuckDB, typed from the source's catalog.
 * The run's log says which.
 */
export async function handsOffCsv(ctx: NodeContext, handoff: CsvHandoff): Promise<boolean> {
  let why: string;
  try {
    if (await handoff.ready()) {
      ctx.log('info', `rows go to sink "${handoff.sinkId}" as CSV, COPY to COPY`);
      return true;
    }
    why = "its table does not exist yet or takes new columns, made from the rows' types";
  } catch (err) {
    ctx.signal.throwIfAborted();
    // The sink meets the same failure when it runs, and reports it there.
    why = `its table could not be checked (${messageOf(err)})`;
  }
  ctx.log('info', `rows go to sink "${handoff.sinkId}" through DuckDB: ${why}`);
  return false;
}

/** The source's side: its rows as CSV into a workspace file (rewritten by each attempt). */
export async function runSourceToCsv(ctx: NodeContext, request: Record<string, unknown>): Promise<NodeResult> {
  const { connector, driver } = ctx.connector('read');
  if (!driver.readCsv)
    throw new NodeFailure(`connector type "${connector.type}" cannot read CSV`, false, 'connector_unfit');
  const path = ctx.workspace.csvPathFor(ctx.node.id);
  const reading = driver.readCsv(connector.config, driverRequest(ctx, request));
  let columns: readonly string[] = [];
  let scales: CsvChunk['scales'];
  let rowsRead = 0;
  const bytes = async function* () {
    for (;;) {
      const next = await reading.next();
      if (next.done) {
        rowsRead = next.value.rows_read;
        return;
      }
      ({ columns, scales } = next.value);
      yield next.value.csv;
    }
  };
  try {
    await pipeline(Readable.from(bytes()), createWriteStream(path), { signal: ctx.signal });
  } finally {
    await reading.return({ rows_read: 0 });
  }
  ctx.workspace.setCsvOutput(ctx.node.id, { path, columns, scales, rows: rowsRead });
  ctx.log('info', `read ${rowsRead} rows`);
  return { rows_in: 0, rows_out: rowsRead, output: null, columns: namedColumns(columns) };
}

/** The sink's side: the input's CSV file streamed into the driver's COPY write. */
export async function runSinkFromCsv(ctx: NodeContext, input: CsvOutput): Promise<NodeResult> {
  const { connector, driver } = ctx.connector('write');
  if (!driver.writeCsv)
    throw new NodeFailure(`connector type "${connector.type}" cannot write CSV`, false, 'connector_unfit');
  const request = sinkRequestOf(ctx);
  const chunks = async function* (): AsyncGenerator<CsvChunk> {
    const file = createReadStream(input.path, { highWaterMark: ctx.workspace.buffers.streamChunkBytes });
    for await (const csv of file) yield { columns: input.columns, scales: input.scales, csv: csv as Buffer };
  };
  const { rows_written } = await driver.writeCsv(connector.config, request, chunks());
  ctx.log('info', `wrote ${rows_written} of ${input.rows} rows to ${request.table} (${request.mode})`);
  return { rows_in: input.rows, rows_out: rows_written, output: null, columns: namedColumns(input.columns) };
}
