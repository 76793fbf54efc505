import { Module } from '@nestjs/common';
import { RunLogsController } from './run-logs.controller.js';
import { RunLogsService } from './run-logs.service.js';
import { RunLogsWorker } from './run-logs.worker.js';
import { LogRetention } from './log-retention.js';
import { RunLogStore } from './run-log-store.js';

@Module({
  controllers: [RunLogsController],
  providers: [RunLogsService, RunLogStore, RunLogsWorker, LogRetention],
  exports: [RunLogsService, RunLogsWorker, LogRetention],
})
export class RunLogsModule {}
