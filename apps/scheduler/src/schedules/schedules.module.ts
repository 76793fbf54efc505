import { Module } from '@nestjs/common';
import { JobSchedules } from './job-schedules.js';
import { ScheduleClock } from './schedule-clock.js';
import { ScheduledRuns } from './scheduled-runs.js';
import { RunsModule } from '../runs/runs.module.js';

@Module({
  imports: [RunsModule],
  providers: [JobSchedules, ScheduleClock, ScheduledRuns],
  exports: [JobSchedules, ScheduleClock],
})
export class SchedulesModule {}
