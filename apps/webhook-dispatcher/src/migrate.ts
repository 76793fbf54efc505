import 'reflect-metadata';
import { createLogger, logReseal, migrate } from '@conduit/service-kit';
import { SecretBox, secretKeysOf } from '@conduit/secrets';
import { bootConfig } from './boot-config.js';
import { createDispatcherDataSource } from './database/dispatcher-data-source.js';
import { resealWebhookSecrets } from './webhooks/webhook-reseal.js';

/**
 * The `migrate` command: applies pending migrations of the webhooks schema, seals stored secrets again under the
 * current key (docs/security.md, rotation) and exits.
 */
async function main(): Promise<void> {
  const config = bootConfig();
  const logger = createLogger({ service: 'webhook-dispatcher', level: config.LOG_LEVEL });
  const dataSource = createDispatcherDataSource({
    url: config.DATABASE_URL,
    schema: config.WEBHOOK_DB_SCHEMA,
    poolSize: 1,
    logger,
  });
  try {
    const ran = await migrate(dataSource);
    logger.info({ migrations: ran }, ran.length > 0 ? 'migrations applied' : 'schema up to date');
    logReseal(logger, await resealWebhookSecrets(dataSource, new SecretBox(secretKeysOf(config))));
  } finally {
    if (dataSource.isInitialized) await dataSource.destroy();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`webhook-dispatcher: migration failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
