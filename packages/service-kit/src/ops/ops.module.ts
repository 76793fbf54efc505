import { Module, type DynamicModule } from '@nestjs/common';
import { MetricsController, OpsController } from './ops.controller.js';
import { OPS_OPTIONS, type OpsModuleOptions } from './ops-options.js';

/**
 * `GET /healthz`, `GET /readyz` and, given a registry, `GET /metrics` for any Nest HTTP app (Fastify or Express).
 * Without a registry the app serves no /metrics: the gateway serves it on a port of its own, not the public one.
 */
@Module({})
export class OpsModule {
  static forRoot(options: OpsModuleOptions): DynamicModule {
    const names = options.checks.map((check) => check.name);
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate !== undefined) throw new Error(`OpsModule: two readiness checks are named "${duplicate}"`);
    return {
      module: OpsModule,
      controllers: options.registry ? [OpsController, MetricsController] : [OpsController],
      providers: [{ provide: OPS_OPTIONS, useValue: options }],
    };
  }
}
