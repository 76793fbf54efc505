import { z } from 'zod';
import { runNodeSchema } from './run-messages.js';

/**
 * Fencing of run executions (issue 16): an executor claims a run before its first node and renews its lease while it
 * works. Each granted claim bumps the run's epoch; a report or a renewal of any other epoch is refused, so an
 * execution the scheduler no longer counts on (taken over, reaped, canceled) can neither write nor go on.
 */

const id = z.string().min(1).max(64);
/** Bounds of a lease an executor may ask for: long enough for one renewal round trip, short enough to take over. */
export const RUN_LEASE_MIN_MS = 500;
export const RUN_LEASE_MAX_MS = 600_000;
const leaseMs = z.number().int().min(RUN_LEASE_MIN_MS).max(RUN_LEASE_MAX_MS);

/** `scheduler.runs.claim` (executor -> scheduler, internal). */
export const runClaimRequestSchema = z.strictObject({
  run_id: id,
  /** The queue job's attemptsStarted: a retried claim of the same attempt (its answer was lost) is granted again. */
  attempt: z.number().int().min(1),
  executor_id: z.string().min(1).max(200),
  /** How long the claim holds without a renewal. */
  lease_ms: leaseMs,
});
export type RunClaimRequest = z.infer<typeof runClaimRequestSchema>;

/**
 * What `scheduler.runs.claim` answers. Granted: the new epoch, and the run's nodes as recorded (after a takeover,
 * those `succeeded` are not run again). Refused: `finished` (the run is over: complete the queue job, run nothing),
 * or `held` (another attempt's lease is live for `retry_in_ms` more).
 */
export const runClaimSchema = z.discriminatedUnion('granted', [
  z.strictObject({ granted: z.literal(true), epoch: z.number().int().min(1), nodes: z.array(runNodeSchema) }),
  z.strictObject({
    granted: z.literal(false),
    reason: z.enum(['finished', 'held', 'unknown_run']),
    status: z.string().max(32).nullable(),
    retry_in_ms: z.number().int().min(0).nullable(),
  }),
]);
export type RunClaim = z.infer<typeof runClaimSchema>;

/** `scheduler.runs.renew` (executor -> scheduler, internal): extends the lease of the claim with this epoch. */
export const runRenewRequestSchema = z.strictObject({ run_id: id, epoch: z.number().int().min(1), lease_ms: leaseMs });
export type RunRenewRequest = z.infer<typeof runRenewRequestSchema>;

/** Not renewed: the epoch is no longer the run's (another attempt, the reaper or a cancel took it): stop at once. */
export const runRenewalSchema = z.strictObject({ renewed: z.boolean() });
export type RunRenewal = z.infer<typeof runRenewalSchema>;

/**
 * `scheduler.runs.release` (executor -> scheduler, internal): an executor handing a run back (shutdown) ends its lease
 * now, so the next executor claims the run at once instead of waiting the lease out.
 */
export const runReleaseRequestSchema = z.strictObject({ run_id: id, epoch: z.number().int().min(1) });
export type RunReleaseRequest = z.infer<typeof runReleaseRequestSchema>;
