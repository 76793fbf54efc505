import { Module, type DynamicModule } from '@nestjs/common';
import { OpsModule, type OpsModuleOptions } from '@conduit/service-kit';
import { DispatcherCoreModule, type DispatcherDeps } from './dispatcher-core.module.js';
import { WebhooksModule } from './webhooks/webhooks.module.js';
import { DeliveriesModule } from './deliveries/deliveries.module.js';

export interface AppModuleOptions extends DispatcherDeps {
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
        DispatcherCoreModule.forRoot(deps),
        WebhooksModule,
        DeliveriesModule,
        ...(ops ? [OpsModule.forRoot(ops)] : []),
      ],
    };
  }
}
