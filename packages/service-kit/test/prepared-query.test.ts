// preparedQuery on the real PostgreSQL: named statements on a transaction's connection and on the pool, each text
// under a name of its own, and failures as TypeORM's own.
import { QueryFailedError, type DataSource } from 'typeorm';
import { createServiceDataSource, isUniqueViolation, preparedQuery } from '../src/index.js';
import { DATABASE_URL } from './servers.js';
import { useSchemaSandbox } from './support/schema-sandbox.js';

const PREPARED = 'SELECT name, statement FROM pg_prepared_statements WHERE NOT from_sql ORDER BY statement';

describe('preparedQuery on the real PostgreSQL', () => {
  const sandbox = useSchemaSandbox();
  let ds: DataSource;
  let schema: string;

  beforeAll(async () => {
    schema = sandbox.freshSchema();
    await sandbox.admin.query(`CREATE SCHEMA "${schema}"`);
    await sandbox.admin.query(`CREATE TABLE "${schema}".items (id int PRIMARY KEY, label text NOT NULL)`);
    ds = createServiceDataSource({ url: DATABASE_URL, schema, entities: [], migrations: [], poolSize: 1 });
    await ds.initialize();
    sandbox.closeFirst(() => ds.destroy());
  });

  it('prepares each text once per connection, under a name of its own, in a transaction as on the pool', async () => {
    const insert = 'INSERT INTO items (id, label) VALUES ($1, $2) RETURNING id, label';
    const read = 'SELECT label FROM items WHERE id = $1';
    const prepared = await ds.transaction(async (m) => {
      expect(await preparedQuery(m, insert, [1, 'one'])).toEqual([{ id: 1, label: 'one' }]);
      expect(await preparedQuery(m, insert, [2, 'two'])).toEqual([{ id: 2, label: 'two' }]);
      // The transaction's own connection: it sees its uncommitted rows.
      expect(await preparedQuery(m, read, [2])).toEqual([{ label: 'two' }]);
      return m.query<{ name: string; statement: string }[]>(PREPARED);
    });
    expect(prepared.map((p) => p.statement)).toEqual([insert, read]);
    expect(new Set(prepared.map((p) => p.name)).size).toBe(2);
    for (const { name } of prepared) expect(name).toMatch(/^conduit_[0-9a-f]{32}$/);

    // Outside a transaction, on the pool (one connection here: the same one, the statements already there).
    expect(await preparedQuery(ds.manager, read, [1])).toEqual([{ label: 'one' }]);
    expect(await ds.query(PREPARED)).toEqual(prepared);
  });

  it('fails as m.query does: a QueryFailedError carrying PostgreSQL’s error, the transaction rolled back', async () => {
    const insert = 'INSERT INTO items (id, label) VALUES ($1, $2)';
    await preparedQuery(ds.manager, insert, [10, 'ten']);
    const failed = ds.transaction(async (m) => {
      await preparedQuery(m, insert, [11, 'eleven']);
      await preparedQuery(m, insert, [10, 'again']);
    });
    await expect(failed).rejects.toBeInstanceOf(QueryFailedError);
    expect(isUniqueViolation(await failed.catch((err: unknown) => err), 'items_pkey')).toBe(true);
    expect(await preparedQuery(ds.manager, 'SELECT id FROM items WHERE id >= $1 ORDER BY id', [10])).toEqual([
      { id: 10 },
    ]);
  });

  it("never runs a transaction's statement on the pool once the server ended the transaction's session", async () => {
    const ds2 = createServiceDataSource({ url: DATABASE_URL, schema, entities: [], migrations: [], poolSize: 2 });
    await ds2.initialize();
    try {
      const ran: unknown[] = [];
      const failed = ds2.transaction(async (m) => {
        await m.query('SELECT pg_terminate_backend(pg_backend_pid())').catch(() => undefined);
        // This one meets the closed socket, which releases the runner; the next meets the released runner.
        await preparedQuery(m, 'SELECT 1 AS one', []).catch(() => undefined);
        ran.push(await preparedQuery(m, "INSERT INTO items (id, label) VALUES (20, 'after') RETURNING id", []));
      });
      await expect(failed).rejects.toMatchObject({ name: 'QueryRunnerProviderAlreadyReleasedError' });
      expect(ran).toEqual([]);
      expect(await preparedQuery(ds2.manager, 'SELECT id FROM items WHERE id = $1', [20])).toEqual([]);
    } finally {
      await ds2.destroy();
    }
  });

  it('survives the server ending a pooled connection under a statement, and the pool goes on with another', async () => {
    // A PostgreSQL shutting down answers the running statement with 57P01, then closes the socket: the close comes
    // while the connection is still taken from the pool, with no statement left to take the error.
    const ds3 = createServiceDataSource({ url: DATABASE_URL, schema, entities: [], migrations: [], poolSize: 1 });
    await ds3.initialize();
    try {
      for (let i = 0; i < 5; i += 1) {
        const failed = preparedQuery(ds3.manager, 'SELECT pg_terminate_backend(pg_backend_pid())', []);
        await expect(failed).rejects.toBeInstanceOf(QueryFailedError);
        expect(await preparedQuery(ds3.manager, 'SELECT 2 AS two', [])).toEqual([{ two: 2 }]);
      }
    } finally {
      await ds3.destroy();
    }
  });
});
