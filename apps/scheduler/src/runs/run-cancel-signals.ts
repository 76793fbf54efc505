import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { QUEUES } from '@conduit/contracts';
import { QueueProducers } from '@conduit/service-kit';
import { RunCancelPublisher } from './run-cancel-publisher.js';
import { SCHEDULER_LOGGER } from '../common/tokens.js';

/**
 * What follows a committed cancel outside the database: the queue job is removed if no executor took it yet,
 * and the executor holding it is told to stop. Best effort: the run is already `canceled`, and an executor's
 * later reports for it are stale.
 */
@Injectable()
export class RunCancelSignals {
  constructor(
    private readonly producers: QueueProducers,
    private readonly publisher: RunCancelPublisher,
    @Inject(SCHEDULER_LOGGER) private readonly logger: Logger,
  ) {}

  async announce(runIds: string[]): Promise<void> {
    for (const runId of runIds) {
      try {
        // 0 when the job is absent or locked by an executor; that executor gets the message below.
        await this.producers.of(QUEUES.runs).queue.remove(runId);
      } catch (err) {
        this.logger.warn({ err, run_id: runId }, 'could not remove the queue job of a canceled run');
      }
      try {
        await this.publisher.publish(runId);
      } catch (err) {
        this.logger.warn({ err, run_id: runId }, 'could not publish the cancel of a run');
      }
    }
  }
}
