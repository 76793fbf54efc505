import { Column, Entity, PrimaryGeneratedColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import type { Logger } from 'pino';
import { createLogger, createServiceDataSource, migrate, type ServiceClass } from '../src/index.js';
import { DATABASE_URL } from './servers.js';
import { useSchemaSandbox } from './support/schema-sandbox.js';

@Entity({ name: 'widgets' })
class Widget {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  colour!: string | null;
}

/** Migrations as a service writes them: tables qualified with the service's schema. */
function widgetMigrations(schema: string): ServiceClass[] {
  class CreateWidgets1700000000001 implements MigrationInterface {
    name = 'CreateWidgets1700000000001';
    async up(q: QueryRunner): Promise<void> {
      // No IF NOT EXISTS: running twice must fail, which is what the concurrency test relies on.
      await q.query(`CREATE TABLE "${schema}"."widgets" (id serial PRIMARY KEY, name text NOT NULL)`);
      // Widens the window in which a second replica would race.
      await q.query('SELECT pg_sleep(0.3)');
    }
    async down(q: QueryRunner): Promise<void> {
      await q.query(`DROP TABLE "${schema}"."widgets"`);
    }
  }
  class AddWidgetColour1700000000002 implements MigrationInterface {
    name = 'AddWidgetColour1700000000002';
    async up(q: QueryRunner): Promise<void> {
      await q.query(`ALTER TABLE "${schema}"."widgets" ADD COLUMN colour text`);
    }
    async down(q: QueryRunner): Promise<void> {
      await q.query(`ALTER TABLE "${schema}"."widgets" DROP COLUMN colour`);
    }
  }
  return [CreateWidgets1700000000001, AddWidgetColour1700000000002];
}

const MIGRATION_NAMES = ['CreateWidgets1700000000001', 'AddWidgetColour1700000000002'];

describe('createServiceDataSource + migrate on the real PostgreSQL', () => {
  const sandbox = useSchemaSandbox();
  const { freshSchema } = sandbox;

  function dataSource(
    schema: string,
    extra: { poolSize?: number; migrations?: ServiceClass[]; entities?: ServiceClass[]; logger?: Logger } = {},
  ) {
    const ds = createServiceDataSource({
      url: DATABASE_URL,
      schema,
      logger: extra.logger,
      entities: extra.entities ?? [Widget],
      migrations: extra.migrations ?? widgetMigrations(schema),
      poolSize: extra.poolSize,
    });
    sandbox.closeFirst(async () => {
      if (ds.isInitialized) await ds.destroy();
    });
    return ds;
  }

  async function tableExists(qualified: string): Promise<boolean> {
    const { rows } = await sandbox.admin.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [
      qualified,
    ]);
    return rows[0]?.found != null;
  }

  it('is migrations-only and keeps its migrations table in its own schema', () => {
    const ds = dataSource(freshSchema(), { poolSize: 3 });
    expect(ds.options).toMatchObject({
      type: 'postgres',
      synchronize: false,
      migrationsRun: false,
      migrationsTableName: 'migrations',
      poolSize: 3,
    });
  });

  it('creates the schema, runs pending migrations in order once, and scopes entities to the schema', async () => {
    const schema = freshSchema();
    const logged: string[] = [];
    const logger = createLogger({
      service: 'kit-test',
      level: 'trace',
      destination: { write: (line: string) => void logged.push(line) },
    });
    const ds = dataSource(schema, { logger });

    expect(await migrate(ds)).toEqual(MIGRATION_NAMES);
    expect(await migrate(ds)).toEqual([]);

    const { rows } = await sandbox.admin.query<{ name: string }>(
      `SELECT name FROM "${schema}"."migrations" ORDER BY id`,
    );
    expect(rows.map((row) => row.name)).toEqual(MIGRATION_NAMES);

    const saved = await ds.getRepository(Widget).save({ name: 'sprocket', colour: 'red' });
    const { rows: stored } = await sandbox.admin.query(`SELECT name, colour FROM "${schema}"."widgets" WHERE id = $1`, [
      saved.id,
    ]);
    expect(stored).toEqual([{ name: 'sprocket', colour: 'red' }]);
    // Unqualified SQL lands in the service's schema too (search_path).
    expect(await ds.query('SELECT count(*)::int AS n FROM widgets')).toEqual([{ n: 1 }]);

    // TypeORM logs through pino: migrations at info, queries at trace, never their parameters.
    const lines = logged.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'info',
        component: 'typeorm',
        msg: 'Migration CreateWidgets1700000000001 has been executed successfully.',
      }),
    );
    expect(lines.some((line) => line['level'] === 'trace' && String(line['query']).startsWith('INSERT INTO'))).toBe(
      true,
    );
    expect(logged.join('')).not.toContain('sprocket');
  });

  it('never synchronizes entities into tables', async () => {
    const schema = freshSchema();
    const ds = dataSource(schema, { migrations: [] });
    expect(await migrate(ds)).toEqual([]);
    expect(await tableExists(`"${schema}"."migrations"`)).toBe(true);
    expect(await tableExists(`"${schema}"."widgets"`)).toBe(false);
  });

  it('runs each migration once when two replicas migrate together', async () => {
    const schema = freshSchema();
    // Pool size 1 proves the lock and the migrations share one connection rather than deadlocking.
    const replicaA = dataSource(schema, { poolSize: 1 });
    const replicaB = dataSource(schema, { poolSize: 1 });

    const results = await Promise.all([migrate(replicaA), migrate(replicaB)]);

    expect(results.map((names) => names.length).sort()).toEqual([0, 2]);
    expect(results.flat()).toEqual(MIGRATION_NAMES);
    const { rows } = await sandbox.admin.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${schema}"."migrations"`,
    );
    expect(rows[0]?.n).toBe(2);
  });

  it('rolls back a failing migration and releases the lock for the next attempt', async () => {
    const schema = freshSchema();
    class Broken1700000000003 implements MigrationInterface {
      name = 'Broken1700000000003';
      async up(q: QueryRunner): Promise<void> {
        await q.query(`CREATE TABLE "${schema}"."half_done" (id int)`);
        await q.query('SELECT * FROM table_that_does_not_exist');
      }
      async down(): Promise<void> {}
    }
    const broken = dataSource(schema, { migrations: [Broken1700000000003] });
    await expect(migrate(broken)).rejects.toThrow(/table_that_does_not_exist/);
    expect(await tableExists(`"${schema}"."half_done"`)).toBe(false);

    // A second data source (another replica) is not blocked by a leftover lock.
    const fixed = dataSource(schema);
    expect(await migrate(fixed)).toEqual(MIGRATION_NAMES);
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() =>
      createServiceDataSource({
        url: DATABASE_URL,
        schema: 'x"; DROP SCHEMA public; --',
        entities: [],
        migrations: [],
      }),
    ).toThrow('must be a lower-case SQL identifier');
  });
});
