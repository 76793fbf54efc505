import { Module, type DynamicModule } from '@nestjs/common';
import { OpsModule, type OpsModuleOptions } from '@conduit/service-kit';
import { CatalogCoreModule, type CatalogDeps } from './catalog-core.module.js';
import { ProjectsModule } from './projects/projects.module.js';
import { PipelinesModule } from './pipelines/pipelines.module.js';
import { ConnectorsModule } from './connectors/connectors.module.js';
import { TemplatesModule } from './templates/templates.module.js';

export interface AppModuleOptions extends CatalogDeps {
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
        CatalogCoreModule.forRoot(deps),
        ProjectsModule,
        PipelinesModule,
        ConnectorsModule,
        TemplatesModule,
        ...(ops ? [OpsModule.forRoot(ops)] : []),
      ],
    };
  }
}
