import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestMicroservice } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { Redis } from 'ioredis';
import type { Job, RecordedSchemasReply, Run, RunNodeColumn } from '@conduit/contracts';
import { dropSchema, newSchemaName, newTenant, openSchema } from './support/db.js';
import { deleteKeys, REDIS_URL, requireRedis, testPrefix } from './support/redis.js';
import { PipelineStore, startStubCatalog } from './support/stub-catalog.js';
import { SchedulerCaller, startScheduler, type SchedulerUnderTest } from './support/scheduler-app.js';

// scheduler.runs.schemas over the real transport: the columns recent runs recorded for a pipeline's sources.
const prefix = testPrefix();
const schema = newSchemaName();
const store = new PipelineStore();
let redis: Redis;
let ds: DataSource;
let catalog: INestMicroservice;
let scheduler: SchedulerUnderTest;
let caller: SchedulerCaller;

beforeAll(async () => {
  redis = await requireRedis();
  ds = await openSchema(schema);
  catalog = await startStubCatalog(REDIS_URL, prefix, store);
  scheduler = await startScheduler(ds, prefix, { background: { ticks: false } });
  caller = new SchedulerCaller(prefix);
});

afterAll(async () => {
  await caller?.close();
  await scheduler?.close();
  await catalog?.close();
  if (ds) await dropSchema(ds, schema);
  if (redis) {
    await deleteKeys(redis, prefix);
    redis.disconnect();
  }
});

const SOURCE_CONFIG = { connector_id: 'con_pg', query: 'select id, amount from orders' };
const DAG = {
  nodes: [
    { id: 'src', type: 'source', config: SOURCE_CONFIG },
    { id: 'calc', type: 'transform', config: { sql: 'select id from src' } },
    { id: 'out', type: 'sink', config: { connector_id: 'con_pg', table: 'out', mode: 'append' } },
  ],
  edges: [
    { from: 'src', to: 'calc' },
    { from: 'calc', to: 'out' },
  ],
};

const cols = (...pairs: [string, string | null][]): RunNodeColumn[] => pairs.map(([name, type]) => ({ name, type }));

/** What an executor's reports leave in the run's row once its nodes succeeded. */
async function recordColumns(runId: string, byNode: Record<string, RunNodeColumn[]>): Promise<void> {
  await ds.query(`UPDATE runs SET node_columns = $2::jsonb WHERE id = $1`, [runId, JSON.stringify(byNode)]);
}

describe('scheduler.runs.schemas', () => {
  it("answers each source's columns from the newest run that recorded them, for the calling tenant only", async () => {
    const t = newTenant();
    const pipeline = store.add(t, { dag: DAG });
    const job = await caller.ok<Job>(t, 'scheduler.jobs.create', {
      body: { name: 'schemas', pipeline_id: pipeline.id, concurrency_policy: 'allow' },
    });
    const trigger = () => caller.ok<Run>(t, 'scheduler.runs.trigger', { job_id: job.id, body: {} });

    expect(await caller.ok<RecordedSchemasReply>(t, 'scheduler.runs.schemas', { pipeline_id: pipeline.id })).toEqual({
      sources: [],
    });

    const first = await trigger();
    await recordColumns(first.id, {
      src: cols(['id', 'INTEGER'], ['amount', 'DECIMAL(12,2)']),
      calc: cols(['id', 'INTEGER']),
    });
    const second = await trigger();
    await recordColumns(second.id, { src: cols(['id', 'BIGINT'], ['amount', 'DECIMAL(12,2)'], ['note', 'VARCHAR']) });
    // The newest run has recorded nothing yet (still queued): the one before it answers.
    await trigger();

    expect(await caller.ok<RecordedSchemasReply>(t, 'scheduler.runs.schemas', { pipeline_id: pipeline.id })).toEqual({
      sources: [
        {
          node_id: 'src',
          run_id: second.id,
          node: { type: 'source', config: SOURCE_CONFIG },
          columns: cols(['id', 'BIGINT'], ['amount', 'DECIMAL(12,2)'], ['note', 'VARCHAR']),
        },
      ],
    });
    // Another tenant asking for the same pipeline id learns nothing.
    expect(
      await caller.ok<RecordedSchemasReply>(newTenant(), 'scheduler.runs.schemas', { pipeline_id: pipeline.id }),
    ).toEqual({ sources: [] });
  });
});
