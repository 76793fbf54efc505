import { Module } from '@nestjs/common';
import { PipelinesController } from './pipelines.controller.js';
import { PipelinesService } from './pipelines.service.js';
import { SqlCheckWarmup } from './sql-check-warmup.js';

@Module({
  controllers: [PipelinesController],
  // PIPELINE_USAGE comes from CatalogCoreModule: the scheduler in production, none in tests of the catalog alone.
  providers: [PipelinesService, SqlCheckWarmup],
  exports: [PipelinesService],
})
export class PipelinesModule {}
