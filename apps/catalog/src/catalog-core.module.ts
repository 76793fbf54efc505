import { Global, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import type { Logger } from 'pino';
import { serviceDatabaseModule, type ServiceDatabase } from '@conduit/service-kit';
import type { SecretKeys } from '@conduit/secrets';
import { CATALOG_LOGGER, SECRETS_KEY } from './common/tokens.js';
import { RpcLogInterceptor } from './common/rpc-log.interceptor.js';
import { NoPipelineUsage, PIPELINE_USAGE, type PipelineUsage } from './pipelines/pipeline-usage.js';
import { NoRecordedSchemas, RECORDED_SCHEMAS, type RecordedSchemas } from './pipelines/recorded-schemas.js';
import { CATALOG_CHANGES, NoCatalogChanges, type CatalogChanges } from './common/catalog-changes.js';

/** What the catalog is built from; main.ts makes them from the config, tests from their own schema. */
export interface CatalogDeps {
  /** main.ts: the catalog's options (opened and migrated at boot); tests: a data source they migrated. */
  database: ServiceDatabase;
  logger: Logger;
  /** 32-byte AES-256-GCM key of connector secrets, or the key ring during a rotation (previous keys only open). */
  secretsKey: Buffer | SecretKeys;
  /** Whether jobs use a pipeline; without it every pipeline counts as unused (tests of the catalog alone). */
  pipelineUsage?: PipelineUsage;
  /** What earlier runs recorded of pipelines' source columns; without it no run is known (tests of the catalog alone). */
  recordedSchemas?: RecordedSchemas;
  /** Tells the scheduler and executors that pipelines or connectors changed; without it nobody is (tests of the catalog alone). */
  catalogChanges?: CatalogChanges;
  /** Closes what the caller opened for the app (database pool, Redis) once Nest has shut down. */
  onShutdown?: () => Promise<void>;
}

class ResourceCloser implements OnApplicationShutdown {
  constructor(private readonly close: (() => Promise<void>) | undefined) {}

  async onApplicationShutdown(): Promise<void> {
    await this.close?.();
  }
}

/** Provides the shared infrastructure to every feature module. */
@Global()
@Module({})
export class CatalogCoreModule {
  static forRoot(deps: CatalogDeps): DynamicModule {
    return {
      module: CatalogCoreModule,
      // The DataSource (its class is the token) and the entity manager: TypeOrmModule provides them globally.
      imports: [serviceDatabaseModule(deps.database)],
      providers: [
        { provide: CATALOG_LOGGER, useValue: deps.logger },
        { provide: SECRETS_KEY, useValue: deps.secretsKey },
        { provide: PIPELINE_USAGE, useValue: deps.pipelineUsage ?? new NoPipelineUsage() },
        { provide: RECORDED_SCHEMAS, useValue: deps.recordedSchemas ?? new NoRecordedSchemas() },
        { provide: CATALOG_CHANGES, useValue: deps.catalogChanges ?? new NoCatalogChanges() },
        { provide: ResourceCloser, useFactory: () => new ResourceCloser(deps.onShutdown) },
        // Only when its lines would be written: any interceptor wraps every RPC in an RxJS pipeline.
        ...(deps.logger.isLevelEnabled('debug') ? [{ provide: APP_INTERCEPTOR, useClass: RpcLogInterceptor }] : []),
      ],
      exports: [CATALOG_LOGGER, SECRETS_KEY, PIPELINE_USAGE, RECORDED_SCHEMAS, CATALOG_CHANGES],
    };
  }
}
