// What other packages (tests, e2e, the start scripts) may use from the catalog.
export { AppModule, type AppModuleOptions } from './app.module.js';
export type { CatalogDeps } from './catalog-core.module.js';
export { catalogEnvSchema, loadCatalogConfig, type CatalogConfig } from './config.js';
export {
  CATALOG_ENTITIES,
  CATALOG_MIGRATIONS,
  catalogDatabaseOptions,
  createCatalogDataSource,
  type CatalogDataSourceOptions,
} from './database/catalog-data-source.js';
export { ProjectsService } from './projects/projects.service.js';
export { PipelinesService, type PipelineInput } from './pipelines/pipelines.service.js';
export { PIPELINE_USAGE, NoPipelineUsage, type PipelineUsage } from './pipelines/pipeline-usage.js';
export { ConnectorsService } from './connectors/connectors.service.js';
export { ConnectorSecrets } from './connectors/connector-secrets.js';
export { listTemplates, findTemplate, type TemplateDefinition } from './templates/template-catalogue.js';
