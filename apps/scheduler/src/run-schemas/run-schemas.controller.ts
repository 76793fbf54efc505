/**
 * `scheduler.runs.schemas`: for the catalog's validation, the output columns the latest runs of one pipeline recorded
 * for its source nodes, with each node as that run ran it (the catalog decides whether the node is still the same).
 * Read-only, one query, scoped to the calling tenant.
 */
import { Controller, Inject } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import {
  RECORDED_SCHEMAS_RUNS,
  recordedSourceSchema,
  type RecordedSchemasReply,
  type RecordedSourceSchema,
  type RpcContext,
  type RpcData,
} from '@conduit/contracts';
import { RpcRoute } from '@conduit/service-kit';
import { SCHEDULER_LOGGER } from '../common/tokens.js';

/**
 * The latest RECORDED_SCHEMAS_RUNS runs of the pipeline (found through its jobs' index: runs have none by pipeline),
 * and for each source node id the columns of the newest of them that recorded any.
 */
const LATEST_SOURCE_COLUMNS = `
  WITH recent AS (
    SELECT r.id, r.dag, r.node_columns FROM runs r
    WHERE r.tenant_id = $1 AND r.pipeline_id = $2
      AND r.job_id IN (SELECT j.id FROM jobs j WHERE j.tenant_id = $1 AND j.pipeline_id = $2)
    ORDER BY r.id DESC
    LIMIT ${RECORDED_SCHEMAS_RUNS}
  )
  SELECT DISTINCT ON (c.key) c.key AS node_id, recent.id AS run_id, n.node, c.value AS columns
  FROM recent
  CROSS JOIN LATERAL jsonb_each(recent.node_columns) c
  CROSS JOIN LATERAL (
    SELECT x AS node FROM jsonb_array_elements(recent.dag -> 'nodes') x WHERE x ->> 'id' = c.key LIMIT 1
  ) n
  WHERE n.node ->> 'type' = 'source' AND jsonb_typeof(c.value) = 'array'
  ORDER BY c.key, recent.id DESC`;

interface Row {
  node_id: string;
  run_id: string;
  node: { type?: unknown; config?: unknown };
  columns: unknown;
}

@Controller()
export class RunSchemasController {
  constructor(
    private readonly ds: DataSource,
    @Inject(SCHEDULER_LOGGER) readonly logger: Logger,
  ) {}

  @RpcRoute('scheduler.runs.schemas')
  async schemas(d: RpcData<'scheduler.runs.schemas'>, ctx: RpcContext): Promise<RecordedSchemasReply> {
    const rows = await this.ds.query<Row[]>(LATEST_SOURCE_COLUMNS, [ctx.tenant_id, d.pipeline_id]);
    const sources: RecordedSourceSchema[] = [];
    for (const row of rows) {
      // A row the reply's schema would refuse (a DAG stored before a limit existed) is left out: its node is unknown.
      const entry = recordedSourceSchema.safeParse({
        node_id: row.node_id,
        run_id: row.run_id,
        node: { type: row.node.type, config: row.node.config },
        columns: row.columns,
      });
      if (entry.success) sources.push(entry.data);
    }
    return { sources: sources.slice(0, 500) };
  }
}
