import { Module } from '@nestjs/common';
import { RunLogsController } from './run-logs.controller.js';
import { RunLogsService } from './run-logs.service.js';
import { RunLogsWorker } from './run-logs.worker.js';
import { LogRetention } from './log-retention.js';

@Module({
  controllers: [RunLogsController],
  providers: [RunLogsService, RunLogsWorker, LogRetention],
  exports: [RunLogsService, RunLogsWorker, LogRetention],
})
export class RunLogsModule {}
