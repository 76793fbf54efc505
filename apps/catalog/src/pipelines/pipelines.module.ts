import { Module } from '@nestjs/common';
import { PipelinesController } from './pipelines.controller.js';
import { PipelinesService } from './pipelines.service.js';
import { NoPipelineUsage, PIPELINE_USAGE } from './pipeline-usage.js';

@Module({
  controllers: [PipelinesController],
  // Replace NoPipelineUsage with a scheduler-backed PipelineUsage once jobs can be asked about.
  providers: [PipelinesService, { provide: PIPELINE_USAGE, useClass: NoPipelineUsage }],
  exports: [PipelinesService],
})
export class PipelinesModule {}
