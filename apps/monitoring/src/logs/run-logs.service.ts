import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  cursorLists,
  AppError,
  FINAL_RUN_STATUSES,
  pageOf,
  type Page,
  type RunLogLine,
  type RunLogQuery,
  type RunLogTail,
  type RunStatus,
} from '@conduit/contracts';
import { findRunFact } from '../facts/run-facts.js';
import { cursorAfter } from '@conduit/service-kit';
import { notFound } from '@conduit/service-kit';
import { iso } from '../common/timestamps.js';
import { gapFreePrefix } from './run-log-seq.js';

interface LogRow {
  seq: string;
  n: number;
  ts: Date;
  level: RunLogLine['level'];
  node_id: string | null;
  message: string;
}

/** Lines a tail answer reads at most (the stream polls again at once for more). */
const TAIL_BATCH = 1000;
/**
 * How long after its final event a run counts as ended for a live stream: its last log batches travel on another
 * queue and may be stored a moment after the final event.
 */
export const RUN_END_GRACE_MS = 2000;

function lineOf(row: LogRow): RunLogLine {
  return { seq: Number(row.seq), ts: iso(row.ts), level: row.level, node_id: row.node_id, message: row.message };
}

export interface RunRef {
  tenantId: string;
  jobId: string;
  runId: string;
}

export interface TailFilter {
  afterSeq: number;
  level?: RunLogLine['level'] | undefined;
  nodeId?: string | undefined;
}

/** A filter's SQL conditions on run_logs, their values after the run id ($1) and the position ($2). */
function filterOf(runId: string, filter: TailFilter): { params: unknown[]; conditions: string[] } {
  const params: unknown[] = [runId, filter.afterSeq];
  const conditions: string[] = [];
  if (filter.level) conditions.push(`level = $${params.push(filter.level)}`);
  if (filter.nodeId) conditions.push(`node_id = $${params.push(filter.nodeId)}`);
  return { params, conditions };
}

/** Run logs: pages in seq order, and tails for live streams. */
@Injectable()
export class RunLogsService {
  constructor(private readonly ds: DataSource) {}

  async list(ref: RunRef, query: RunLogQuery): Promise<Page<RunLogLine>> {
    await this.runStatusOrThrow(ref);
    const after = cursorAfter(query.cursor, cursorLists.runLogs(ref.runId));
    const afterSeq = after === undefined ? 0 : Number(after);
    if (!Number.isSafeInteger(afterSeq) || afterSeq < 0)
      throw new AppError('invalid_parameter', 'query parameter cursor: is not a valid cursor');
    const filter = { afterSeq, level: query.level, nodeId: query.node_id };
    const rows = await this.linesAfter(ref.runId, filter, query.limit + 1);
    return pageOf(rows.map(lineOf), query.limit, (line) => String(line.seq), cursorLists.runLogs(ref.runId));
  }

  /**
   * The lines after `afterSeq` that match the filter (up to a hole while the run is live), the last seq looked at
   * (`scanned_seq`: the next tail starts after it, past lines the filter left out) and whether nothing is left.
   */
  async tail(ref: RunRef, filter: TailFilter): Promise<RunLogTail> {
    const fact = await this.runStatusOrThrow(ref);
    const settled =
      fact !== null &&
      FINAL_RUN_STATUSES.includes(fact.status) &&
      Date.now() - fact.updatedAt.getTime() >= RUN_END_GRACE_MS;
    if (settled) {
      // No line comes any more, so no hole to stop at: the filter goes in the WHERE clause, as List Run Logs does, and
      // an answer short of a batch has read every line left.
      const rows = await this.linesAfter(ref.runId, filter, TAIL_BATCH);
      const data = rows.map(lineOf);
      return { data, scanned_seq: data.at(-1)?.seq ?? filter.afterSeq, run_finished: rows.length < TAIL_BATCH };
    }
    // A live run's lines may still arrive with holes between them, and only the lines themselves show a hole: read
    // the next batch whatever the filter (a line it leaves out is answered without its message), stop at a hole,
    // and answer how far that went, so the stream moves past a thousand lines of other nodes instead of reading them
    // again on every poll.
    const { params, conditions } = filterOf(ref.runId, filter);
    const hit = conditions.length ? conditions.join(' AND ') : 'true';
    const rows = await this.ds.query<(LogRow & { hit: boolean })[]>(
      `SELECT seq, n, ts, level, node_id, CASE WHEN ${hit} THEN message END AS message, ${hit} AS hit FROM run_logs WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT ${TAIL_BATCH}`,
      params,
    );
    const shown = gapFreePrefix(
      rows.map((row) => ({ row, seq: Number(row.seq), n: row.n })),
      filter.afterSeq,
    );
    return {
      data: shown.filter(({ row }) => row.hit).map(({ row }) => lineOf(row)),
      scanned_seq: shown.at(-1)?.seq ?? filter.afterSeq,
      run_finished: false,
    };
  }

  /** The run's lines after `filter.afterSeq` that match it, in seq order, `limit` at most (the primary key's range scan). */
  private linesAfter(runId: string, filter: TailFilter, limit: number): Promise<LogRow[]> {
    const { params, conditions } = filterOf(runId, filter);
    const filters = conditions.map((c) => ` AND ${c}`).join('');
    return this.ds.query<LogRow[]>(
      `SELECT seq, n, ts, level, node_id, message FROM run_logs WHERE run_id = $1 AND seq > $2${filters} ORDER BY seq LIMIT ${limit}`,
      params,
    );
  }

  /**
   * The run's fact, or null when only its logs are known so far (they can overtake its first event); a run the
   * tenant does not have under that job is a 404.
   */
  private async runStatusOrThrow(ref: RunRef): Promise<{ status: RunStatus; updatedAt: Date } | null> {
    const fact = await findRunFact(this.ds.manager, ref.tenantId, ref.jobId, ref.runId);
    if (fact) return { status: fact.status as RunStatus, updatedAt: fact.updated_at };
    const logs = await this.ds.query<unknown[]>(
      `SELECT 1 FROM run_logs WHERE run_id = $1 AND tenant_id = $2 AND job_id = $3 LIMIT 1`,
      [ref.runId, ref.tenantId, ref.jobId],
    );
    if (logs.length === 0) throw notFound('run', ref.runId);
    return null;
  }
}
