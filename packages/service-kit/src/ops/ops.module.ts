import { Module, type DynamicModule } from '@nestjs/common';
import { OpsController } from './ops.controller.js';
import { OPS_OPTIONS, type OpsModuleOptions } from './ops-options.js';

/** `GET /healthz`, `GET /readyz` and `GET /metrics` for any Nest HTTP app (Fastify or Express). */
@Module({})
export class OpsModule {
  static forRoot(options: OpsModuleOptions): DynamicModule {
    const names = options.checks.map((check) => check.name);
    const duplicate = names.find((name, index) => names.indexOf(name) !== index);
    if (duplicate !== undefined) throw new Error(`OpsModule: two readiness checks are named "${duplicate}"`);
    return {
      module: OpsModule,
      controllers: [OpsController],
      providers: [{ provide: OPS_OPTIONS, useValue: options }],
    };
  }
}
