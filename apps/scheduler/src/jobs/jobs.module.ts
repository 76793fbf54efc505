import { Module } from '@nestjs/common';
import { JobsController } from './jobs.controller.js';
import { JobsService } from './jobs.service.js';
import { RunsModule } from '../runs/runs.module.js';
import { SchedulesModule } from '../schedules/schedules.module.js';

@Module({
  imports: [RunsModule, SchedulesModule],
  controllers: [JobsController],
  providers: [JobsService],
})
export class JobsModule {}
