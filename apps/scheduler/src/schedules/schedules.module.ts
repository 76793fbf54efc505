import { Module } from '@nestjs/common';
import { JobSchedules } from './job-schedules.js';
import { TickWorker } from './tick.worker.js';
import { RunsModule } from '../runs/runs.module.js';

@Module({
  imports: [RunsModule],
  providers: [JobSchedules, TickWorker],
  exports: [JobSchedules, TickWorker],
})
export class SchedulesModule {}
