import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { QueueEvents } from 'bullmq';
import type { Logger } from 'pino';
import { QUEUES } from '@conduit/contracts';
import { RunStateMachine } from './run-state-machine.js';
import { OutboxRelay, QueueWorkers } from '@conduit/service-kit';
import { SCHEDULER_LOGGER, SCHEDULER_SETTINGS } from '../common/tokens.js';
import type { SchedulerSettings } from '../scheduler-settings.js';
import { lostExecutorError } from './run-errors.js';

/**
 * Fails a run as soon as its queue job fails (an executor that crashed, or stalled more often than allowed),
 * instead of waiting for the reaper. Every replica hears the event; the locked transition makes one of them win.
 */
@Injectable()
export class RunsQueueFailures implements OnApplicationBootstrap, OnModuleDestroy {
  private events: QueueEvents | null = null;

  constructor(
    private readonly machine: RunStateMachine,
    private readonly workers: QueueWorkers,
    private readonly relay: OutboxRelay,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
    @Inject(SCHEDULER_SETTINGS) private readonly settings: SchedulerSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.settings.background.reaper) return;
    this.events = new QueueEvents(QUEUES.runs, { connection: this.workers.connection, prefix: this.workers.prefix });
    this.events.on('error', (err) => this.logger.warn({ err }, 'runs queue events error'));
    this.events.on('failed', ({ jobId, failedReason }) => {
      this.machine
        .failIfActive(jobId, lostExecutorError(failedReason))
        .then((failed) => {
          if (!failed) return;
          this.logger.warn({ run_id: jobId, reason: failedReason }, 'run failed: its queue job failed');
          this.relay.wake();
        })
        .catch((err: unknown) =>
          this.logger.error({ err, run_id: jobId }, 'could not fail the run of a failed queue job'),
        );
    });
    await this.events.waitUntilReady();
  }

  async onModuleDestroy(): Promise<void> {
    await this.events?.close();
  }
}
