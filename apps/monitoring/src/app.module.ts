import { Module, type DynamicModule } from '@nestjs/common';
import { OpsModule, type ReadinessCheck } from '@conduit/service-kit';
import { MonitoringCoreModule, type MonitoringDeps } from './monitoring-core.module.js';
import { EventsModule } from './events/events.module.js';
import { AlertsModule } from './alerts/alerts.module.js';
import { MetricsModule } from './metrics/metrics.module.js';
import { RunLogsModule } from './logs/run-logs.module.js';

export interface AppModuleOptions extends MonitoringDeps {
  /** /healthz, /readyz and /metrics (on `registry`); omitted when the app runs without HTTP (tests of the RPC alone). */
  readiness?: ReadinessCheck[];
}

@Module({})
export class AppModule {
  static forRoot(opts: AppModuleOptions): DynamicModule {
    const { readiness, ...deps } = opts;
    return {
      module: AppModule,
      imports: [
        MonitoringCoreModule.forRoot(deps),
        EventsModule,
        AlertsModule,
        MetricsModule,
        RunLogsModule,
        ...(readiness ? [OpsModule.forRoot({ registry: deps.registry, checks: readiness })] : []),
      ],
    };
  }
}
