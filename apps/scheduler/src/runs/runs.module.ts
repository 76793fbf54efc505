import { Module } from '@nestjs/common';
import { RunsController } from './runs.controller.js';
import { RunsService } from './runs.service.js';
import { RunStateMachine } from './run-state-machine.js';
import { RunCancelSignals } from './run-cancel-signals.js';
import { RunReportsWorker } from './run-reports.worker.js';
import { RunsQueueFailures } from './runs-queue-failures.js';
import { RunClaims } from './run-claims.js';
import { TriggeredJobs } from './triggered-jobs.js';

@Module({
  controllers: [RunsController],
  providers: [
    RunsService,
    RunStateMachine,
    RunCancelSignals,
    RunReportsWorker,
    RunsQueueFailures,
    RunClaims,
    TriggeredJobs,
  ],
  exports: [RunsService, RunStateMachine, RunCancelSignals],
})
export class RunsModule {}
