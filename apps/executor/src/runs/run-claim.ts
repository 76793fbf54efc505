/**
 * The executor's side of run fencing (issue 16, packages/contracts/src/run-claims.ts): claim a run from the scheduler
 * before its first node, and renew the claim's lease while the run works. A renewal the scheduler refuses means the
 * run has moved on without this execution (a takeover, the reaper, a cancel): the caller stops at once.
 */
import type { Logger } from 'pino';
import type { RpcContext, RunClaim } from '@conduit/contracts';
import { type RpcClient, RpcRemoteError } from '@conduit/rpc-streams';

export class ClaimUnavailableError extends Error {
  constructor(
    message: string,
    /**
     * The scheduler answered, but with an error other than being unavailable, or with a reply the claim's schema
     * refuses: asking again is unlikely to help (no answer at all, or `service_unavailable`, is an outage that ends).
     */
    readonly answered = false,
  ) {
    super(message);
    this.name = 'ClaimUnavailableError';
  }
}

export interface ClaimRequest {
  runId: string;
  tenantId: string;
  attempt: number;
  executorId: string;
  leaseMs: number;
}

const ctxOf = (tenantId: string, runId: string): RpcContext => ({
  tenant_id: tenantId,
  scopes: ['write'],
  request_id: runId,
});

/** One round trip; throws ClaimUnavailableError when the scheduler cannot answer (the run is then not started). */
export async function claimRun(client: RpcClient, req: ClaimRequest): Promise<RunClaim> {
  try {
    return await client.call('scheduler.runs.claim', {
      ctx: ctxOf(req.tenantId, req.runId),
      data: { run_id: req.runId, attempt: req.attempt, executor_id: req.executorId, lease_ms: req.leaseMs },
    });
  } catch (err) {
    if (err instanceof RpcRemoteError) {
      throw new ClaimUnavailableError(
        err.malformed ? 'the scheduler answered the claim with a malformed reply' : `the claim failed: ${err.code}`,
        err.malformed || err.code !== 'service_unavailable',
      );
    }
    throw new ClaimUnavailableError(`the scheduler did not answer the claim: ${(err as Error).message}`);
  }
}

/**
 * Renews a granted claim every third of its lease, with one call at a time. A refusal calls `onLost` once; a call
 * that fails (scheduler or Redis away) is logged and tried again: while this executor holds the queue job's lock no
 * other can claim the run, and the reaper waits for the lease to lapse and the lock to be lost.
 */
export class RunLease {
  private timer: NodeJS.Timeout | null = null;
  private renewing = false;

  constructor(
    private readonly client: RpcClient,
    private readonly claim: { runId: string; tenantId: string; epoch: number; leaseMs: number },
    private readonly onLost: () => void,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.renew(), Math.max(100, Math.floor(this.claim.leaseMs / 3)));
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Ends the lease now, for a run handed back: the next executor claims it at once. Best effort: else it lapses. */
  async release(): Promise<void> {
    this.stop();
    const { runId, tenantId, epoch, leaseMs } = this.claim;
    try {
      await this.client.call(
        'scheduler.runs.release',
        { ctx: ctxOf(tenantId, runId), data: { run_id: runId, epoch } },
        { timeoutMs: Math.max(100, Math.floor(leaseMs / 3)) },
      );
    } catch (err) {
      this.logger.warn(
        { run_id: runId, epoch, err: (err as Error).message },
        'could not release the lease; it lapses by itself',
      );
    }
  }

  private async renew(): Promise<void> {
    if (this.renewing) return;
    this.renewing = true;
    const { runId, tenantId, epoch, leaseMs } = this.claim;
    try {
      const renewal = await this.client.call(
        'scheduler.runs.renew',
        { ctx: ctxOf(tenantId, runId), data: { run_id: runId, epoch, lease_ms: leaseMs } },
        { timeoutMs: Math.max(100, Math.floor(leaseMs / 3)) },
      );
      if (!renewal.renewed && this.timer) {
        this.stop();
        this.logger.warn(
          { run_id: runId, epoch },
          'lease renewal refused: another execution holds the run; stopping it',
        );
        this.onLost();
      }
    } catch (err) {
      this.logger.warn({ run_id: runId, epoch, err: (err as Error).message }, 'lease renewal failed; trying again');
    } finally {
      this.renewing = false;
    }
  }
}
