import { getDriver, ConnectorError, type ConnectorDriver, type Row } from '../src/index.js';
import { useMysqlSandbox } from './support/mysql-sandbox.js';
import { allowPrivateNetworks } from './support/network-policy.js';
import { waitFor } from '@conduit/testing';
import { batchesOf } from './support/driver-batches.js';

// The test servers listen on this machine, which the default network policy refuses.
allowPrivateNetworks();

const driver = getDriver('mysql') as ConnectorDriver;
const sandbox = useMysqlSandbox();

async function collect(batches: AsyncIterable<Row[]>): Promise<Row[][]> {
  const out: Row[][] = [];
  for await (const batch of batches) out.push(batch);
  return out;
}

async function tableRows(sql: string): Promise<Row[]> {
  const [rows] = await sandbox.admin.query(sql);
  return rows as Row[];
}

describe('mysql write', () => {
  it('appends values of every kind and reads them back', async () => {
    await sandbox.admin.query(
      'create table kinds (id int primary key, name varchar(100), amount decimal(10,2), big bigint, ok boolean, ' +
        'at datetime(3), doc json, bytes varbinary(10))',
    );
    const rows: Row[] = [
      {
        id: 1,
        name: `it's "quoted",\nnew line ✓`,
        amount: 12.5,
        big: 9007199254740993n,
        ok: true,
        at: new Date('2024-01-02T03:04:05.006Z'),
        doc: { a: [1, null] },
        bytes: Buffer.from([0, 255]),
      },
      { id: 2, name: null, amount: null, big: null, ok: false, at: null, doc: null, bytes: null },
    ];
    const result = await driver.write!(sandbox.config, { table: 'kinds', mode: 'append' }, batchesOf(rows));
    expect(result).toEqual({ rows_written: 2 });

    const [read] = await collect(driver.read!(sandbox.config, { query: 'select * from kinds order by id' }));
    expect(read).toEqual([
      {
        id: 1,
        name: `it's "quoted",\nnew line ✓`,
        amount: '12.50',
        big: '9007199254740993',
        ok: 1,
        at: new Date('2024-01-02T03:04:05.006Z'),
        doc: { a: [1, null] },
        bytes: Buffer.from([0, 255]),
      },
      { id: 2, name: null, amount: null, big: null, ok: 0, at: null, doc: null, bytes: null },
    ]);
  });

  it('writes many rows across batches and statements, and reads them in batches of batchSize', async () => {
    await sandbox.admin.query('create table many (id int primary key, label varchar(200))');
    const batches = (async function* () {
      for (let b = 0; b < 5; b++) {
        yield Array.from({ length: 4000 }, (_, i) => ({
          id: b * 4000 + i,
          label: `row ${b * 4000 + i} ${'x'.repeat(100)}`,
        }));
      }
    })();
    expect(await driver.write!(sandbox.config, { table: 'many', mode: 'append' }, batches)).toEqual({
      rows_written: 20_000,
    });
    const read = await collect(driver.read!(sandbox.config, { table: 'many', batchSize: 7000 }));
    expect(read.map((b) => b.length)).toEqual([7000, 7000, 6000]);
    const ids = read
      .flat()
      .map((r) => r['id'] as number)
      .sort((a, b) => a - b);
    expect(ids[0]).toBe(0);
    expect(ids[19_999]).toBe(19_999);
    expect(new Set(ids).size).toBe(20_000);
  });

  it('overwrites in one transaction: replaced on success, untouched on failure', async () => {
    await sandbox.admin.query('create table ow (id int primary key, v varchar(10))');
    await sandbox.admin.query("insert into ow values (1, 'old'), (2, 'old')");
    await driver.write!(sandbox.config, { table: 'ow', mode: 'overwrite' }, batchesOf([{ id: 3, v: 'new' }]));
    expect(await tableRows('select * from ow')).toEqual([{ id: 3, v: 'new' }]);

    const failing = driver.write!(
      sandbox.config,
      { table: 'ow', mode: 'overwrite' },
      batchesOf([{ id: 4, v: 'x' }], [{ id: 4, v: 'dup' }]),
    );
    await expect(failing).rejects.toMatchObject({
      errorClass: 'config_error',
      message: expect.stringMatching(/Duplicate entry/),
    });
    expect(await tableRows('select * from ow')).toEqual([{ id: 3, v: 'new' }]);
  });

  it('upserts by the table key: updates, inserts, and the last of a repeated key wins', async () => {
    await sandbox.admin.query('create table up (id int primary key, v varchar(10), keep varchar(10))');
    await sandbox.admin.query("insert into up values (1, 'old', 'k1'), (2, 'old', 'k2')");
    const result = await driver.write!(
      sandbox.config,
      { table: 'up', mode: 'upsert', key: ['id'] },
      batchesOf(
        [
          { id: 1, v: 'first' },
          { id: 3, v: 'new' },
        ],
        [{ id: 1, v: 'last' }],
      ),
    );
    expect(result.rows_written).toBe(3);
    expect(await tableRows('select * from up order by id')).toEqual([
      { id: 1, v: 'last', keep: 'k1' },
      { id: 2, v: 'old', keep: 'k2' },
      { id: 3, v: 'new', keep: null },
    ]);
  });

  it('refuses an upsert without a key, unknown columns in later batches, and unknown modes', async () => {
    await expect(
      driver.write!(sandbox.config, { table: 'up', mode: 'upsert' }, batchesOf([{ id: 1 }])),
    ).rejects.toThrow(/upsert needs a key/);
    await expect(
      driver.write!(sandbox.config, { table: 'up', mode: 'append' }, batchesOf([{ id: 10 }], [{ id: 11, nope: 1 }])),
    ).rejects.toThrow(/column "nope"/);
    expect(await tableRows('select * from up where id >= 10')).toEqual([]);
    await expect(driver.write!(sandbox.config, { table: 'up', mode: 'merge' as never }, batchesOf())).rejects.toThrow(
      /unknown write mode/,
    );
  });

  it('fails with a config_error naming a missing table', async () => {
    const err = await driver.write!(sandbox.config, { table: 'nope', mode: 'append' }, batchesOf([{ a: 1 }])).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConnectorError);
    expect(err).toMatchObject({ errorClass: 'config_error', code: 'ER_NO_SUCH_TABLE' });
    expect((err as Error).message).toMatch(/Table '.*\.nope' doesn't exist/);
  });
});

describe('mysql read', () => {
  it('takes query parameters and db.table names', async () => {
    await sandbox.admin.query('create table params (id int, v varchar(5))');
    await sandbox.admin.query("insert into params values (1, 'a'), (2, 'b'), (3, 'c')");
    const read = await collect(
      driver.read!(sandbox.config, { query: 'select v from params where id >= ? order by id;', params: [2] }),
    );
    expect(read).toEqual([[{ v: 'b' }, { v: 'c' }]]);
    const whole = await collect(driver.read!(sandbox.config, { table: `${sandbox.database}.params` }));
    expect(whole.flat()).toHaveLength(3);
  });

  it('fails with a config_error for a missing table', async () => {
    const err = await collect(driver.read!(sandbox.config, { table: 'missing_table' })).catch((e: unknown) => e);
    expect(err).toMatchObject({ errorClass: 'config_error', code: 'ER_NO_SUCH_TABLE' });
    expect((err as Error).message).toMatch(/missing_table' doesn't exist/);
  });

  it('stops with the abort reason when the signal aborts, and when the consumer stops early closes its connection', async () => {
    const controller = new AbortController();
    const reason = new Error('stop now');
    const seen: number[] = [];
    const reading = (async () => {
      for await (const batch of driver.read!(sandbox.config, {
        table: 'many',
        batchSize: 1000,
        signal: controller.signal,
      })) {
        seen.push(batch.length);
        if (seen.length === 2) controller.abort(reason);
      }
    })();
    await expect(reading).rejects.toBe(reason);
    expect(seen).toEqual([1000, 1000]);

    const before = await threadsOfUser();
    for await (const batch of driver.read!(sandbox.config, { table: 'many', batchSize: 100 })) {
      expect(batch).toHaveLength(100);
      break;
    }
    await waitFor(async () => (await threadsOfUser()) <= before, { what: 'the reader to disconnect', timeoutMs: 5000 });
  });

  it('rejects a read with neither query nor table', async () => {
    await expect(collect(driver.read!(sandbox.config, {}))).rejects.toThrow(/needs a query or a table/);
  });
});

describe('mysql execute', () => {
  it('runs DDL and DML and answers the rows affected', async () => {
    expect(await driver.execute!(sandbox.config, 'create table ex (id int)')).toEqual({ rows_affected: 0 });
    expect(await driver.execute!(sandbox.config, 'insert into ex values (1), (2), (3)')).toEqual({ rows_affected: 3 });
    expect(await driver.execute!(sandbox.config, 'delete from ex where id > 1')).toEqual({ rows_affected: 2 });
  });

  it('fails with a classified error and kills a running statement on abort', async () => {
    await expect(driver.execute!(sandbox.config, 'selec 1')).rejects.toMatchObject({
      errorClass: 'config_error',
      code: 'ER_PARSE_ERROR',
    });
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(new Error('canceled')), 300);
    await expect(driver.execute!(sandbox.config, 'select sleep(20)', { signal: controller.signal })).rejects.toThrow(
      'canceled',
    );
    expect(Date.now() - started).toBeLessThan(5000);
    await waitFor(async () => !(await sandbox.threadRuns('select sleep(20)')), {
      what: 'the statement to be killed',
      timeoutMs: 5000,
    });
  });
});

/** Connections to the sandbox database other than the admin's own. */
async function threadsOfUser(): Promise<number> {
  const rows = await tableRows(
    `select count(*) as n from information_schema.processlist where db = '${sandbox.database}' and id <> connection_id()`,
  );
  return Number(rows[0]?.['n']);
}
