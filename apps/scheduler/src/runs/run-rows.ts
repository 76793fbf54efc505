import type { EntityManager } from 'typeorm';
import type { OutboxMessage } from '@conduit/outbox';
import { preparedQuery } from '@conduit/service-kit';
import { RunEntity } from './run.entity.js';
import { addOutboxMessages, OUTBOX_INSERT_FROM_JSON, outboxJson } from '../outbox/outbox-writer.js';

/**
 * Fixed SQL over `runs` for the hot paths (Trigger Run, claims, reports): TypeORM's query builder builds every query
 * again per call, which cost more of the scheduler's CPU than PostgreSQL spent running them. The column lists come
 * from the entity's metadata once, so the SQL follows the entity.
 */
interface RunSql {
  columns: ReturnType<EntityManager['connection']['getMetadata']>['columns'];
  /** Every column, as `r."col"`: the select list of a locked read. */
  selectList: string;
  /** Every column but the DAG (what claims, events and the API's run read), as `r."col"`. */
  selectListWithoutDag: string;
  /** Every column, quoted: the insert list. */
  insertList: string;
}

const sqlByMetadata = new WeakMap<object, RunSql>();

function runSql(m: EntityManager): RunSql {
  const metadata = m.connection.getMetadata(RunEntity);
  let sql = sqlByMetadata.get(metadata);
  if (!sql) {
    const columns = metadata.columns;
    sql = {
      columns,
      selectList: columns.map((c) => `r."${c.databaseName}"`).join(', '),
      selectListWithoutDag: columns
        .filter((c) => c.databaseName !== 'dag')
        .map((c) => `r."${c.databaseName}"`)
        .join(', '),
      insertList: columns.map((c) => `"${c.databaseName}"`).join(', '),
    };
    sqlByMetadata.set(metadata, sql);
  }
  return sql;
}

/** A row as node-postgres answers it (timestamptz as Date, jsonb parsed) as the entity TypeORM would have made. */
export function runOfRow(m: EntityManager, row: Record<string, unknown>): RunEntity {
  const run = new RunEntity();
  for (const c of runSql(m).columns) c.setEntityValue(run, row[c.databaseName] ?? null);
  return run;
}

/** The run as one JSON object keyed by column, for `json_populate_record(NULL::runs, ...)`. */
export function rowOfRun(m: EntityManager, run: RunEntity): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const c of runSql(m).columns) row[c.databaseName] = (c.getEntityValue(run) as unknown) ?? null;
  return row;
}

/** The columns of `runs` quoted, in the entity's order (an INSERT's column list). */
export function runInsertList(m: EntityManager): string {
  return runSql(m).insertList;
}

/** The columns of `runs` as `r."col"` (a SELECT over `runs r`). */
export function runSelectList(m: EntityManager): string {
  return runSql(m).selectList;
}

/** The columns of `runs` but `dag` as `r."col"`: a row for claims, events and the API's run, without the DAG. */
export function runSelectListWithoutDag(m: EntityManager): string {
  return runSql(m).selectListWithoutDag;
}

/**
 * Records the reports' event ids as processed and locks the runs they name, in one statement: answers the event ids
 * not processed before (each once) and the runs by id. The runs are locked in id order (the order of every multi-run
 * lock: no deadlock between them); a (run, tenant) pair whose run is another tenant's, or none, is not there.
 */
export async function markAndLockReported(
  m: EntityManager,
  eventIds: readonly string[],
  keys: readonly { id: string; tenantId: string }[],
  /** Read the DAG too (only a legacy `run.started` report needs it, to restart the nodes). */
  withDag: boolean,
): Promise<{ fresh: Set<string>; runs: Map<string, RunEntity> }> {
  const rows = await preparedQuery<{ fresh_event_ids: string[] } & Record<string, unknown>>(
    m,
    `WITH fresh AS (
       INSERT INTO processed_events (event_id, processed_at) SELECT unnest($1::text[]), $2
       ON CONFLICT (event_id) DO NOTHING RETURNING event_id)
     SELECT (SELECT coalesce(array_agg(event_id), '{}') FROM fresh) AS fresh_event_ids, locked.*
       FROM (VALUES (1)) AS one (x) LEFT JOIN LATERAL (
         SELECT ${withDag ? runSelectList(m) : runSelectListWithoutDag(m)}
           FROM runs r JOIN unnest($3::text[], $4::text[]) AS k(id, tenant_id)
             ON r.id = k.id AND r.tenant_id = k.tenant_id
          ORDER BY r.id FOR UPDATE OF r) AS locked ON true`,
    [eventIds, new Date(), keys.map((k) => k.id), keys.map((k) => k.tenantId)],
  );
  const runs = new Map<string, RunEntity>();
  for (const row of rows) if (row['id'] !== null) runs.set(row['id'] as string, runOfRow(m, row));
  return { fresh: new Set(rows[0]?.fresh_event_ids ?? []), runs };
}

/** The columns a report may change (run-transitions.ts), written whole from the locked row. */
const REPORTED_COLUMNS = [
  ['status', 'text'],
  ['attempt', 'integer'],
  ['started_at', 'timestamptz'],
  ['finished_at', 'timestamptz'],
  ['error', 'jsonb'],
  ['nodes', 'jsonb'],
  ['node_columns', 'jsonb'],
  ['stats', 'jsonb'],
  ['last_event_at', 'timestamptz'],
] as const;

const UPDATE_REPORTED = `UPDATE runs AS r SET ${REPORTED_COLUMNS.map(([c]) => `"${c}" = x."${c}"`).join(', ')}
  FROM json_to_recordset($1::json) AS x(id text, ${REPORTED_COLUMNS.map(([c, t]) => `"${c}" ${t}`).join(', ')})
 WHERE r.id = x.id`;

/** The same with the events of the transitions inserted into the outbox by the same statement. */
const UPDATE_REPORTED_WITH_EVENTS = `WITH updated AS (${UPDATE_REPORTED}) ${OUTBOX_INSERT_FROM_JSON('$2')}`;

/**
 * Writes the reported columns of many runs, each row once (a second UPDATE of a row this transaction already updated
 * re-checks its foreign key, FOR KEY SHARE on the job, which deadlocks against a trigger holding it), and their
 * events to the outbox, in one statement. The caller holds the rows locked, so writing every such column from them
 * loses nothing.
 */
export async function writeReportedRuns(
  m: EntityManager,
  runs: readonly RunEntity[],
  events: readonly OutboxMessage[],
): Promise<void> {
  if (runs.length === 0) {
    await addOutboxMessages(m, events);
    return;
  }
  const rows = runs.map((run) => ({
    id: run.id,
    status: run.status,
    attempt: run.attempt,
    started_at: run.startedAt,
    finished_at: run.finishedAt,
    error: run.error,
    nodes: run.nodes,
    node_columns: run.nodeColumns,
    stats: run.stats,
    last_event_at: run.lastEventAt,
  }));
  if (events.length === 0) await preparedQuery(m, UPDATE_REPORTED, [JSON.stringify(rows)]);
  else await preparedQuery(m, UPDATE_REPORTED_WITH_EVENTS, [JSON.stringify(rows), outboxJson(events)]);
}

/** A timestamptz(3) as Date.toISOString() writes it (UTC, milliseconds, `Z`). */
const iso = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/**
 * The `run.started` event of a claimed run `g`, built by the claim's own statement: runEventOf (run.mapper.ts) in
 * SQL, so the claim and its event are one statement with no read of the row between. claims.test.ts checks that both
 * build the same event. $6 is the event id, $7 its time (ISO), $8 the trace context (withJobTrace of nothing).
 */
const RUN_STARTED_PAYLOAD = `jsonb_build_object(
    'event_id', $6::text, 'type', 'run.started', 'created_at', $7::text, 'tenant_id', g.tenant_id,
    'run', jsonb_build_object(
      'id', g.id, 'job_id', g.job_id, 'pipeline_id', g.pipeline_id, 'pipeline_version', g.pipeline_version,
      'status', g.status, 'trigger', g.trigger, 'attempt', g.attempt, 'queued_at', ${iso('g.queued_at')},
      'started_at', ${iso('g.started_at')}, 'finished_at', ${iso('g.finished_at')},
      'duration_ms', CASE WHEN g.started_at IS NOT NULL AND g.finished_at IS NOT NULL
        THEN GREATEST(0, round(extract(epoch FROM g.finished_at - g.started_at) * 1000))::bigint END,
      'error', g.error, 'stats', g.stats)) || $8::jsonb`;

/**
 * The claim's compare-and-set (docs/reliability.md) in one statement: the run taken by this executor when it is
 * active and no other attempt's lease is live, the epoch bumped, and on the first claim (epoch 1) its `run.started`
 * event written to the outbox. Answers the claimed row without its DAG, or nothing when refused.
 */
export function claimSql(m: EntityManager): string {
  return `WITH g AS (
      UPDATE runs r SET epoch = epoch + 1, status = 'running', claimed_by = $3, claim_attempt = $4,
             lease_until = clock_timestamp() + make_interval(secs => $5::float8 / 1000),
             started_at = COALESCE(started_at, now()), attempt = $4, last_event_at = now()
       WHERE id = $1 AND tenant_id = $2 AND status IN ('queued', 'running')
         AND (lease_until IS NULL OR lease_until <= clock_timestamp() OR claimed_by = $3)
      RETURNING ${runSelectListWithoutDag(m)}),
    started AS (
      INSERT INTO outbox (kind, message_id, run_id, payload, created_at)
      SELECT 'run_event', $6, g.id, ${RUN_STARTED_PAYLOAD}, $7::timestamptz FROM g WHERE g.epoch = 1)
    SELECT * FROM g`;
}
