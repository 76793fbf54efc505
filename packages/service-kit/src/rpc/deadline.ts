import { AppError, type RpcContext } from '@conduit/contracts';

/**
 * How long before the caller's deadline work is no longer committed: the COMMIT itself and the reply take a few
 * milliseconds, and work that lands after the caller answered 503 is exactly what this guard is for.
 */
export const COMMIT_MARGIN_MS = 100;

/** The caller has answered 503 (or is about to): the work was rolled back and nothing changed. */
export class DeadlinePassedError extends AppError {
  constructor() {
    super(
      'service_unavailable',
      'the request took longer than its caller waits; nothing was changed',
      undefined,
      'service',
    );
    this.name = 'DeadlinePassedError';
  }
}

/**
 * Call as the last statement inside a creating handler's transaction, just before it commits: past the caller's
 * deadline (less {@link COMMIT_MARGIN_MS}) it throws, which rolls the transaction back. A caller that has already
 * answered 503 therefore leaves nothing behind, unless the COMMIT itself outlasts the margin; the resource's
 * idempotency key covers that case (a retry finds the row). A context without a deadline (a cron tick, a test) passes.
 */
export function assertBeforeDeadline(ctx: Pick<RpcContext, 'deadline'>, now: number = Date.now()): void {
  if (ctx.deadline !== undefined && now + COMMIT_MARGIN_MS >= ctx.deadline) throw new DeadlinePassedError();
}
