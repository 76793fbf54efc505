import type { SecretKeys } from '@conduit/secrets';

/** Tunables of the dispatcher; main.ts fills them from the config, tests from their needs. */
export interface DispatcherSettings {
  redisUrl: string;
  /** The deployment's REDIS_PREFIX: RPC keys and the BullMQ prefix (`${prefix}bull`) derive from it. */
  redisPrefix: string;
  /** AES-256-GCM key of the stored secrets (32 bytes), or the key ring during a rotation (previous keys only open). */
  secretsKey: Buffer | SecretKeys;
  /** Plain http:// URLs allowed. Default false. */
  allowHttp: boolean;
  /** Loopback, private, link-local and metadata addresses allowed. Default false. */
  allowPrivateNetworks: boolean;
  /** Delay before each retry, in ms; its length is the number of retries. Default 5s,5m,30m,2h,5h,10h,10h. */
  retryScheduleMs: number[];
  /** An attempt without an answer within this fails. Default 10000. */
  timeoutMs: number;
  /** A webhook failing without a success for this long is disabled. Default 5 days. */
  disableAfterMs: number;
  /** Attempts sent at once by this process. Default 100. */
  deliveryConcurrency: number;
  /** Period of the outbox relay's sweep and of the lost-delivery sweep. Default 5000. */
  sweepMs: number;
  /** Which background loops run in this process (tests switch some off). */
  background: { events: boolean; deliveries: boolean; relay: boolean; sweep: boolean };
}

export const DEFAULT_RETRY_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

export function dispatcherSettings(
  partial: Pick<DispatcherSettings, 'redisUrl' | 'redisPrefix' | 'secretsKey'> & Partial<DispatcherSettings>,
): DispatcherSettings {
  return {
    allowHttp: false,
    allowPrivateNetworks: false,
    retryScheduleMs: DEFAULT_RETRY_SCHEDULE_MS,
    timeoutMs: 10_000,
    disableAfterMs: 5 * 86_400_000,
    deliveryConcurrency: 100,
    sweepMs: 5000,
    ...partial,
    background: { events: true, deliveries: true, relay: true, sweep: true, ...partial.background },
  };
}
