import 'reflect-metadata';
import { createLogger, logReseal, migrate } from '@conduit/service-kit';
import { secretKeysOf } from '@conduit/secrets';
import { bootConfig } from './boot-config.js';
import { createCatalogDataSource } from './database/catalog-data-source.js';
import { ConnectorSecrets } from './connectors/connector-secrets.js';
import { resealConnectorSecrets } from './connectors/connector-reseal.js';

/**
 * The `migrate` command: applies pending migrations of the catalog schema, seals stored secrets again under the
 * current key (docs/security.md, rotation) and exits.
 */
async function main(): Promise<void> {
  const config = bootConfig();
  const logger = createLogger({ service: 'catalog', level: config.LOG_LEVEL });
  const dataSource = createCatalogDataSource({
    url: config.DATABASE_URL,
    schema: config.CATALOG_DB_SCHEMA,
    poolSize: 1,
    logger,
  });
  try {
    const ran = await migrate(dataSource);
    logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');
    logReseal(logger, await resealConnectorSecrets(dataSource, new ConnectorSecrets(secretKeysOf(config))));
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`catalog: migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
