import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import type { Logger } from 'pino';
import type { RunClaim, RunClaimRequest, RunReleaseRequest, RunRenewRequest, RunRenewal } from '@conduit/contracts';
import type { RunEntity } from './run.entity.js';
import { claimSql, runOfRow } from './run-rows.js';
import { orderedNode } from './run.mapper.js';
import { isFinal } from './run-transitions.js';
import { newId, OutboxRelay, preparedQuery, withJobTrace } from '@conduit/service-kit';
import { SCHEDULER_LOGGER } from '../common/tokens.js';
import { RUN_START_EVENTS_WAIT_MS } from '../outbox/scheduler-outbox.js';

/**
 * Fencing of run executions (issue 16). An executor claims a run before its first node: one compare-and-set on the
 * run's row grants it when the run is active and no other attempt's lease is live, bumps the epoch, and answers what
 * has already succeeded. Renewals extend the lease of the current epoch only; the reaper and the scheduler's own ends
 * of a run (cancel, fail) bump the epoch too (run-state-machine.ts), so an older execution can never write again.
 */
@Injectable()
export class RunClaims {
  constructor(
    private readonly ds: DataSource,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
  ) {}

  async claim(tenantId: string, req: RunClaimRequest): Promise<RunClaim> {
    // The lease is measured on the database's clock only: executors' clocks never decide who holds a run. The holder's
    // own executor claims again at once whatever its attempt (a claim whose answer it lost comes back with the next
    // attempt): an executor never claims a run it is still executing (run.processor.ts), and the new epoch fences
    // whatever it ran before. The first claim is the run's start, announced by the same statement (one commit).
    const m = this.ds.manager;
    const rows = await preparedQuery(m, claimSql(m), [
      req.run_id,
      tenantId,
      req.executor_id,
      req.attempt,
      req.lease_ms,
      newId('event'),
      new Date().toISOString(),
      JSON.stringify(withJobTrace({})),
    ]);
    const outcome = rows[0] ? this.granted(runOfRow(m, rows[0])) : await this.refusal(tenantId, req.run_id);
    if (outcome.granted) {
      if (outcome.epoch === 1) this.relay.wakeWithin(RUN_START_EVENTS_WAIT_MS);
      else
        this.logger.warn(
          { run_id: req.run_id, epoch: outcome.epoch, executor_id: req.executor_id, attempt: req.attempt },
          'run taken over by a new claim',
        );
    } else {
      this.logger.info(
        {
          run_id: req.run_id,
          executor_id: req.executor_id,
          attempt: req.attempt,
          reason: outcome.reason,
          status: outcome.status,
        },
        'run claim refused',
      );
    }
    return outcome;
  }

  /** Extends the lease of the claim holding `epoch`; refused when the run has moved on (another epoch, or it ended). */
  async renew(tenantId: string, req: RunRenewRequest): Promise<RunRenewal> {
    const [rows] = await this.ds.query<[unknown[], number]>(
      `UPDATE runs SET lease_until = clock_timestamp() + make_interval(secs => $4::float8 / 1000)
        WHERE id = $1 AND tenant_id = $2 AND epoch = $3 AND status = 'running' RETURNING 1 AS ok`,
      [req.run_id, tenantId, req.epoch, req.lease_ms],
    );
    if (rows.length === 0)
      this.logger.warn(
        { run_id: req.run_id, epoch: req.epoch },
        "lease renewal refused: the epoch is no longer the run's",
      );
    return { renewed: rows.length === 1 };
  }

  /** Ends the lease of the claim holding `epoch` now (a run handed back); the epoch stays, so reports still count. */
  async release(tenantId: string, req: RunReleaseRequest): Promise<{ released: boolean }> {
    const [rows] = await this.ds.query<[unknown[], number]>(
      `UPDATE runs SET lease_until = NULL WHERE id = $1 AND tenant_id = $2 AND epoch = $3 AND status = 'running' RETURNING 1 AS ok`,
      [req.run_id, tenantId, req.epoch],
    );
    return { released: rows.length === 1 };
  }

  private granted(row: RunEntity): RunClaim {
    return {
      granted: true,
      epoch: row.epoch,
      nodes: row.nodes.map((n) => orderedNode(n, Object.hasOwn(row.nodeColumns, n.id) ? row.nodeColumns[n.id]! : null)),
    };
  }

  private async refusal(tenantId: string, runId: string): Promise<RunClaim> {
    const [row] = await this.ds.query<{ status: RunEntity['status']; left_ms: number | null }[]>(
      `SELECT status, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (lease_until - clock_timestamp())) * 1000))::int AS left_ms FROM runs WHERE id = $1 AND tenant_id = $2`,
      [runId, tenantId],
    );
    if (!row) return { granted: false, reason: 'unknown_run', status: null, retry_in_ms: null };
    if (isFinal(row)) return { granted: false, reason: 'finished', status: row.status, retry_in_ms: null };
    return { granted: false, reason: 'held', status: row.status, retry_in_ms: row.left_ms ?? 0 };
  }
}
