import { randomUUID } from 'node:crypto';
import { ConnectorError, getDriver, type ConnectorDriver, type Row } from '../src/index.js';
import { waitFor } from '@conduit/testing';
import { usePgSandbox } from './support/pg-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { expectAbortStopsStatement } from './support/statement-abort.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('postgres') as Required<ConnectorDriver>;
const sandbox = usePgSandbox();

beforeAll(async () => {
  await sandbox.admin.query(
    `create table numbers as select g as id, 'n' || g as label from generate_series(1, 20000) g`,
  );
});

describe('postgres read', () => {
  it('streams 20,000 rows of a query in batches, in order', async () => {
    const sizes: number[] = [];
    const ids: number[] = [];
    for await (const batch of driver.read(sandbox.config, {
      query: 'select id, label from numbers order by id;',
      batchSize: 3000,
    })) {
      sizes.push(batch.length);
      for (const row of batch) ids.push(row['id'] as number);
    }
    expect(sizes).toEqual([3000, 3000, 3000, 3000, 3000, 3000, 2000]);
    expect(ids).toEqual(Array.from({ length: 20000 }, (_, i) => i + 1));
  });

  it('reads a whole table of the config schema in batches of 5000 by default', async () => {
    const sizes: number[] = [];
    let first: Row | undefined;
    for await (const batch of driver.read(sandbox.config, { table: 'numbers' })) {
      first ??= batch[0];
      sizes.push(batch.length);
    }
    expect(sizes).toEqual([5000, 5000, 5000, 5000]);
    expect(Object.keys(first ?? {})).toEqual(['id', 'label']);
  });

  it('reads schema.table names and takes query parameters', async () => {
    const rows: Row[] = [];
    for await (const batch of driver.read(
      { ...sandbox.config, schema: 'public' },
      { table: `${sandbox.schema}.numbers`, batchSize: 7000 },
    )) {
      rows.push(...batch);
    }
    expect(rows).toHaveLength(20000);
    const picked: Row[] = [];
    for await (const batch of driver.read(sandbox.config, {
      query: 'select label from numbers where id = $1',
      params: [42],
    })) {
      picked.push(...batch);
    }
    expect(picked).toEqual([{ label: 'n42' }]);
  });

  it('fails with a config_error for a missing table', async () => {
    const iterate = async () => {
      for await (const _ of driver.read(sandbox.config, { table: 'no_such_table' })) void _;
    };
    await expect(iterate()).rejects.toMatchObject({
      name: 'ConnectorError',
      errorClass: 'config_error',
      code: '42P01',
    });
    await expect(iterate()).rejects.toBeInstanceOf(ConnectorError);
  });

  it('stops with the abort reason when the signal aborts between batches', async () => {
    const controller = new AbortController();
    let batches = 0;
    const iterate = async () => {
      for await (const _ of driver.read(sandbox.config, {
        table: 'numbers',
        batchSize: 1000,
        signal: controller.signal,
      })) {
        batches += 1;
        controller.abort();
      }
    };
    await expect(iterate()).rejects.toMatchObject({ name: 'AbortError' });
    expect(batches).toBe(1);
  });

  it('closes its connection when the consumer stops early', async () => {
    const batchSize = 10_000 + Math.floor(Math.random() * 89_999);
    const marker = `fetch forward ${batchSize} from`;
    for await (const batch of driver.read(sandbox.config, { table: 'numbers', batchSize })) {
      expect(batch).toHaveLength(batchSize > 20000 ? 20000 : batchSize);
      break;
    }
    await waitFor(async () => !(await sandbox.sessionShows(marker, { active: false })), {
      what: 'the reader to disconnect',
      timeoutMs: 5000,
    });
  });

  it('cancels a fetch in flight on the server', async () => {
    // The server shows the FETCH, not the query: an unusual batch size makes it ours.
    const batchSize = 10_000 + Math.floor(Math.random() * 89_999);
    const marker = `fetch forward ${batchSize} from`;
    const iterate = async (signal: AbortSignal) => {
      for await (const _ of driver.read(sandbox.config, { query: 'select pg_sleep(60)', batchSize, signal })) void _;
    };
    const started = Date.now();
    await expectAbortStopsStatement(iterate, () => sandbox.sessionShows(marker));
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('refuses a source query that adds a second statement, on every read path, and runs none of it', async () => {
    const table = `injected_${randomUUID().slice(0, 8)}`;
    const drain = async (rows: AsyncIterable<unknown>) => {
      for await (const _ of rows) void _;
    };
    // The query as it is sent alone (the cursor's), and as it is sent inside a subquery (COPY's description).
    for (const query of [
      `select 1 as n; commit; create table ${table} (a int)`,
      `select 1 as n) q; commit; create table ${table} (a int); select 1 as n from (select 1`,
    ]) {
      await expect(drain(driver.read(sandbox.config, { query }))).rejects.toMatchObject({ name: 'ConnectorError' });
      await expect(drain(driver.readCsv(sandbox.config, { query }))).rejects.toMatchObject({ name: 'ConnectorError' });
    }
    const exists = await sandbox.admin.query<{ t: string | null }>(`select to_regclass($1) as t`, [
      `${sandbox.schema}.${table}`,
    ]);
    expect(exists.rows[0]?.t).toBeNull();
  });

  it('rejects a read with neither query nor table', async () => {
    const iterate = async () => {
      for await (const _ of driver.read(sandbox.config, {})) void _;
    };
    await expect(iterate()).rejects.toMatchObject({
      errorClass: 'config_error',
      message: 'a read needs a query or a table',
    });
  });
});

describe('postgres execute', () => {
  it('runs DDL and DML and answers the rows affected', async () => {
    await expect(driver.execute(sandbox.config, `create table "${sandbox.schema}".exec_t (id int)`)).resolves.toEqual({
      rows_affected: 0,
    });
    await expect(
      driver.execute(sandbox.config, `insert into "${sandbox.schema}".exec_t select generate_series(1, 7)`),
    ).resolves.toEqual({ rows_affected: 7 });
    await expect(
      driver.execute(
        sandbox.config,
        `update "${sandbox.schema}".exec_t set id = id + 1 where id <= 3; delete from "${sandbox.schema}".exec_t where id = 7`,
      ),
    ).resolves.toEqual({ rows_affected: 4 });
  });

  it('fails with a classified error', async () => {
    await expect(driver.execute(sandbox.config, 'selec 1')).rejects.toMatchObject({
      errorClass: 'config_error',
      code: '42601',
    });
    await expect(driver.execute({ ...sandbox.config, port: 'x' }, 'select 1')).rejects.toMatchObject({
      errorClass: 'config_error',
    });
  });

  it('cancels a running statement when the signal aborts', async () => {
    const marker = `m${randomUUID().replace(/-/g, '')}`;
    await expectAbortStopsStatement(
      (signal) => driver.execute(sandbox.config, `select pg_sleep(60) /* ${marker} */`, { signal }),
      () => sandbox.sessionShows(marker),
    );
  });
});
