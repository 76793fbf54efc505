import { Module, type DynamicModule } from '@nestjs/common';
import { OpsModule, type OpsModuleOptions } from '@conduit/service-kit';

/** The executor's only HTTP surface: /healthz, /readyz and /metrics. Runs arrive over the `runs` queue. */
@Module({})
export class ExecutorAppModule {
  static forRoot(ops: OpsModuleOptions): DynamicModule {
    return { module: ExecutorAppModule, imports: [OpsModule.forRoot(ops)] };
  }
}
