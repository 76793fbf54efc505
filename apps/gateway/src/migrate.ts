import 'reflect-metadata';
import { bootConfig, createLogger, createServiceDataSource, migrate } from '@conduit/service-kit';
import { loadGatewayConfig } from './config.js';
import { gatewayEntities } from './api-keys/entities.js';
import { gatewayMigrations } from './migrations/index.js';

/** `node dist/migrate.js`: applies the gateway's migrations and exits. */
async function main(): Promise<void> {
  const config = bootConfig('gateway', loadGatewayConfig);
  const logger = createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const ds = createServiceDataSource({
    url: config.DATABASE_URL,
    schema: 'gateway',
    entities: gatewayEntities,
    migrations: gatewayMigrations,
    logger,
  });
  const ran = await migrate(ds);
  logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'no pending migrations');
  await ds.destroy();
}

main().catch((err: unknown) => {
  process.stderr.write(`gateway: migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
