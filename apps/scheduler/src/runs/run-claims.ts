import { Inject, Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import type { Logger } from 'pino';
import type { RunClaim, RunClaimRequest, RunReleaseRequest, RunRenewRequest, RunRenewal } from '@conduit/contracts';
import { RunEntity, type NodeColumnsById, type StoredRunNode } from './run.entity.js';
import { orderedNode, runEventOf } from './run.mapper.js';
import { isFinal } from './run-transitions.js';
import { addRunEvent } from '../outbox/outbox-writer.js';
import { OutboxRelay } from '@conduit/service-kit';
import { SCHEDULER_LOGGER } from '../common/tokens.js';

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
    const outcome = await this.ds.transaction(async (m) => {
      // The lease is measured on the database's clock only: executors' clocks never decide who holds a run. The
      // holder's own executor claims again at once whatever its attempt (a claim whose answer it lost comes back with
      // the next attempt): an executor never claims a run it is still executing (run.processor.ts), and the new
      // epoch fences whatever it ran before.
      const granted = await m.query<
        [{ epoch: number; nodes: StoredRunNode[]; node_columns: NodeColumnsById }[], number]
      >(
        `UPDATE runs SET epoch = epoch + 1, status = 'running', claimed_by = $3, claim_attempt = $4,
                lease_until = clock_timestamp() + make_interval(secs => $5::float8 / 1000),
                started_at = COALESCE(started_at, now()), attempt = $4, last_event_at = now()
          WHERE id = $1 AND tenant_id = $2 AND status IN ('queued', 'running')
            AND (lease_until IS NULL OR lease_until <= clock_timestamp() OR claimed_by = $3)
          RETURNING epoch, nodes, node_columns`,
        [req.run_id, tenantId, req.executor_id, req.attempt, req.lease_ms],
      );
      const row = granted[0][0];
      if (!row) return this.refusal(m, tenantId, req.run_id);
      // The first claim is the run's start: announce it with the claim, in the same transaction.
      if (row.epoch === 1) {
        const run = await m.findOneByOrFail(RunEntity, { id: req.run_id });
        await addRunEvent(m, runEventOf(run, 'run.started', new Date()));
      }
      const claim: RunClaim = {
        granted: true,
        epoch: row.epoch,
        nodes: row.nodes.map((n) =>
          orderedNode(n, Object.hasOwn(row.node_columns, n.id) ? row.node_columns[n.id]! : null),
        ),
      };
      return claim;
    });
    if (outcome.granted) {
      if (outcome.epoch === 1) this.relay.wake();
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

  private async refusal(m: EntityManager, tenantId: string, runId: string): Promise<RunClaim> {
    const [row] = await m.query<{ status: RunEntity['status']; left_ms: number | null }[]>(
      `SELECT status, GREATEST(0, CEIL(EXTRACT(EPOCH FROM (lease_until - clock_timestamp())) * 1000))::int AS left_ms FROM runs WHERE id = $1 AND tenant_id = $2`,
      [runId, tenantId],
    );
    if (!row) return { granted: false, reason: 'unknown_run', status: null, retry_in_ms: null };
    if (isFinal(row)) return { granted: false, reason: 'finished', status: row.status, retry_in_ms: null };
    return { granted: false, reason: 'held', status: row.status, retry_in_ms: row.left_ms ?? 0 };
  }
}
