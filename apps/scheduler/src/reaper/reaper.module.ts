import { Module } from '@nestjs/common';
import { RunReaper } from './run-reaper.js';
import { RunsModule } from '../runs/runs.module.js';

@Module({
  imports: [RunsModule],
  providers: [RunReaper],
  exports: [RunReaper],
})
export class ReaperModule {}
