import { Module, type DynamicModule } from '@nestjs/common';
import { OpsModule, type OpsModuleOptions } from '@conduit/service-kit';
import { SchedulerCoreModule, type SchedulerDeps } from './scheduler-core.module.js';
import { JobsModule } from './jobs/jobs.module.js';
import { RunsModule } from './runs/runs.module.js';
import { SchedulesModule } from './schedules/schedules.module.js';
import { ReaperModule } from './reaper/reaper.module.js';
import { RunSchemasModule } from './run-schemas/run-schemas.module.js';

export interface AppModuleOptions extends SchedulerDeps {
  /** /healthz, /readyz and /metrics; omitted when the app runs without HTTP (tests of the RPC alone). */
  ops?: OpsModuleOptions;
}

@Module({})
export class AppModule {
  static forRoot(opts: AppModuleOptions): DynamicModule {
    const { ops, ...deps } = opts;
    return {
      module: AppModule,
      imports: [
        SchedulerCoreModule.forRoot({ ...deps, ...(ops?.registry ? { registry: ops.registry } : {}) }),
        JobsModule,
        RunsModule,
        SchedulesModule,
        ReaperModule,
        RunSchemasModule,
        ...(ops ? [OpsModule.forRoot(ops)] : []),
      ],
    };
  }
}
