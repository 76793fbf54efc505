import 'reflect-metadata';
import { logReseal, runMigrateCommand } from '@conduit/service-kit';
import { secretKeysOf } from '@conduit/secrets';
import { bootConfig } from './boot-config.js';
import { createCatalogDataSource } from './database/catalog-data-source.js';
import { ConnectorSecrets } from './connectors/connector-secrets.js';
import { resealConnectorSecrets } from './connectors/connector-reseal.js';

/**
 * The `migrate` command: applies pending migrations of the catalog schema, seals stored secrets again under the
 * current key (docs/security.md, rotation) and exits.
 */
runMigrateCommand('catalog', () => {
  const config = bootConfig();
  return {
    logLevel: config.LOG_LEVEL,
    dataSource: (logger) =>
      createCatalogDataSource({ url: config.DATABASE_URL, schema: config.CATALOG_DB_SCHEMA, poolSize: 1, logger }),
    afterMigrations: async (dataSource, logger) =>
      logReseal(logger, await resealConnectorSecrets(dataSource, new ConnectorSecrets(secretKeysOf(config)))),
  };
});
