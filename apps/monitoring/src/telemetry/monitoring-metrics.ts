import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { RunStatus } from '@conduit/contracts';
import type { QueueProducers } from '@conduit/service-kit';

/** Job states reported per queue by `bullmq_queue_jobs`. */
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'prioritized', 'failed', 'completed'] as const;
/** A scrape must not hang on a Redis outage: each queue's counts get this long. */
const COUNT_TIMEOUT_MS = 1000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The monitoring service's Prometheus series, on the service's own registry:
 * - `conduit_runs_total{status}`: run facts that reached each status (counted once per accepted transition);
 * - `bullmq_queue_jobs{queue,state}`: every queue's job counts, read from Redis at each scrape;
 * - `bullmq_job_duration_seconds{queue}`: how long this service's workers take per job.
 */
export class MonitoringMetrics {
  readonly runsTotal: Counter<'status'>;
  readonly jobDuration: Histogram<'queue'>;

  constructor(registry: Registry, queues: QueueProducers) {
    this.runsTotal = new Counter({
      name: 'conduit_runs_total',
      help: 'Runs that reached each status',
      labelNames: ['status'],
      registers: [registry],
    });
    this.jobDuration = new Histogram({
      name: 'bullmq_job_duration_seconds',
      help: 'Time spent processing one queue job',
      labelNames: ['queue'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    new Gauge({
      name: 'bullmq_queue_jobs',
      help: 'Jobs in each queue by state, read at scrape time',
      labelNames: ['queue', 'state'],
      registers: [registry],
      async collect() {
        this.reset();
        await Promise.all(
          queues.all().map(async ({ name, queue }) => {
            try {
              const counts = await withTimeout(queue.getJobCounts(...QUEUE_STATES), COUNT_TIMEOUT_MS);
              for (const state of QUEUE_STATES) this.set({ queue: name, state }, counts[state] ?? 0);
            } catch {
              // Redis unavailable: the queue is left out of this scrape rather than failing it.
            }
          }),
        );
      },
    });
  }

  countRun(status: RunStatus): void {
    this.runsTotal.inc({ status });
  }

  /** Runs one queue job's work and records its duration, whatever its outcome. */
  async timeJob<T>(queue: string, work: () => Promise<T>): Promise<T> {
    const end = this.jobDuration.startTimer({ queue });
    try {
      return await work();
    } finally {
      end();
    }
  }
}
