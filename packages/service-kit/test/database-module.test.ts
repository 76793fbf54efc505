import 'reflect-metadata';
import { Module, type DynamicModule, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { DataSource, type MigrationInterface, type QueryRunner } from 'typeorm';
import { StartupError, createServiceDataSource, migrate, serviceDatabaseModule } from '../src/index.js';
import type { ServiceClass, ServiceDatabase } from '../src/index.js';
import { DATABASE_URL } from './servers.js';
import { useSchemaSandbox } from './support/schema-sandbox.js';

/** A migration as a service writes it: its table qualified with the service's schema. */
function notesMigration(schema: string, fail = false): ServiceClass {
  return class CreateNotes1700000000001 implements MigrationInterface {
    name = 'CreateNotes1700000000001';
    async up(q: QueryRunner): Promise<void> {
      if (fail) throw new Error('column "nope" does not exist');
      await q.query(`CREATE TABLE "${schema}"."notes" (id serial PRIMARY KEY)`);
    }
    async down(q: QueryRunner): Promise<void> {
      await q.query(`DROP TABLE "${schema}"."notes"`);
    }
  };
}

@Module({})
class HostModule {
  static with(database: ServiceDatabase): DynamicModule {
    return { module: HostModule, imports: [serviceDatabaseModule(database)] };
  }
}

describe('serviceDatabaseModule (TypeOrmModule) on the real PostgreSQL', () => {
  const sandbox = useSchemaSandbox();
  const { freshSchema } = sandbox;

  async function start(database: ServiceDatabase): Promise<INestApplicationContext> {
    const app = await NestFactory.createApplicationContext(HostModule.with(database), {
      logger: false,
      abortOnError: false,
    });
    sandbox.closeFirst(() => app.close());
    return app;
  }

  it('opens and migrates the service schema as the app starts, and closes the pool with the app', async () => {
    const schema = freshSchema();
    const app = await start({ url: DATABASE_URL, schema, entities: [], migrations: [notesMigration(schema)] });
    const ds = app.get(DataSource);
    expect(ds.isInitialized).toBe(true);
    expect(ds.options).toMatchObject({ schema, synchronize: false, migrationsRun: false });
    const { rows } = await sandbox.admin.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [
      `${schema}.notes`,
    ]);
    expect(rows[0]?.found).toBe(`${schema}.notes`);
    await app.close();
    expect(ds.isInitialized).toBe(false);
  });

  it('opens a pool of its own on a data source a test migrated, and leaves that one open', async () => {
    const schema = freshSchema();
    const own = createServiceDataSource({
      url: DATABASE_URL,
      schema,
      entities: [],
      migrations: [notesMigration(schema)],
    });
    try {
      await migrate(own);
      const app = await start(own);
      const ds = app.get(DataSource);
      expect(ds).not.toBe(own);
      expect(await ds.query(`SELECT count(*)::int AS n FROM notes`)).toEqual([{ n: 0 }]);
      await app.close();
      expect(ds.isInitialized).toBe(false);
      expect(own.isInitialized).toBe(true);
    } finally {
      await own.destroy();
    }
  });

  it('refuses to start with one error naming PostgreSQL and the schema when a migration fails', async () => {
    const schema = freshSchema();
    // Trust authentication accepts any password: it must not reach the message.
    const url = new URL(DATABASE_URL);
    url.password = 'hunter2';
    const err: unknown = await start({
      url: url.toString(),
      schema,
      entities: [],
      migrations: [notesMigration(schema, true)],
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StartupError);
    const message = (err as StartupError).message;
    expect(message).toMatch(new RegExp(`^PostgreSQL at postgres://.*, schema "${schema}": migrating failed \\(`));
    expect(message).toContain('column "nope" does not exist');
    expect(message).not.toContain('hunter2');
  });
});
