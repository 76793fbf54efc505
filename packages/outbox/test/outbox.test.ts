import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { pino } from 'pino';
import { OutboxRelay, writeOutbox, type OutboxRow } from '../src/index.js';

const DATABASE_URL = process.env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const schema = `outbox_test_${randomUUID().replace(/-/g, '')}`;
let ds: DataSource;
const logger = pino({ level: 'silent' });

beforeAll(async () => {
  ds = new DataSource({ type: 'postgres', url: DATABASE_URL, schema, extra: { options: `-c search_path=${schema}` } });
  try {
    await ds.initialize();
  } catch (err) {
    throw new Error(`PostgreSQL is required at ${DATABASE_URL}: ${(err as Error).message}`, { cause: err });
  }
  await ds.query(`CREATE SCHEMA ${schema}`);
  await ds.query(`CREATE TABLE ${schema}.outbox (
    id bigserial PRIMARY KEY, kind text NOT NULL, message_id text NOT NULL, payload jsonb NOT NULL,
    created_at timestamptz(3) NOT NULL, published_at timestamptz(3))`);
});

afterAll(async () => {
  await ds.query(`DROP SCHEMA ${schema} CASCADE`);
  await ds.destroy();
});

beforeEach(async () => {
  await ds.query('TRUNCATE outbox');
});

/** A relay that hands each row of a turn to `publish`, one after the other. */
function relay(publish: (row: OutboxRow) => Promise<void>): OutboxRelay {
  return turnRelay(async (rows) => {
    for (const row of rows) await publish(row);
  });
}

function turnRelay(publish: (rows: OutboxRow[]) => Promise<void>, batch?: number): OutboxRelay {
  return new OutboxRelay({
    dataSource: ds,
    logger,
    sweepMs: 60_000,
    columns: ['kind'],
    publish: (_m, rows) => publish(rows),
    ...(batch === undefined ? {} : { batch }),
  });
}

const pending = async (): Promise<number> =>
  Number((await ds.query<{ n: string }[]>(`SELECT count(*) AS n FROM outbox WHERE published_at IS NULL`))[0]!.n);

/** Resolves once `done()` holds (checked every 10 ms); throws after 5 s. */
async function until(done: () => boolean): Promise<void> {
  const giveUpAt = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > giveUpAt) throw new Error('timed out waiting for the relay');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const message = (id: string) => ({
  message_id: id,
  kind: 'event',
  payload: { type: 'thing.happened', id },
  created_at: new Date(),
});

describe('transactional outbox', () => {
  it('publishes what a committed transaction wrote, in order, with its extra columns, once', async () => {
    await ds.transaction(async (m) => {
      await writeOutbox(m, message('evt_1'));
      await writeOutbox(m, message('evt_2'));
    });
    const seen: OutboxRow[] = [];
    const r = relay(async (row) => void seen.push(row));
    expect(await r.drain()).toBe(2);
    expect(seen.map((row) => [row.message_id, row.kind, row.payload])).toEqual([
      ['evt_1', 'event', { type: 'thing.happened', id: 'evt_1' }],
      ['evt_2', 'event', { type: 'thing.happened', id: 'evt_2' }],
    ]);
    expect(await r.drain()).toBe(0);
  });

  it('publishes nothing of a transaction that rolled back', async () => {
    await expect(
      ds.transaction(async (m) => {
        await writeOutbox(m, message('evt_lost'));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    const seen: string[] = [];
    expect(await relay(async (row) => void seen.push(row.message_id)).drain()).toBe(0);
    expect(seen).toEqual([]);
  });

  it('loses nothing when the process dies between the commit and the publish', async () => {
    await ds.transaction((m) => writeOutbox(m, message('evt_crash')));
    // The first relay fails while publishing (as if the process died there): the row stays pending.
    await expect(relay(async () => Promise.reject(new Error('killed'))).drain()).rejects.toThrow('killed');
    const seen: string[] = [];
    expect(await relay(async (row) => void seen.push(row.message_id)).drain()).toBe(1);
    expect(seen).toEqual(['evt_crash']);
  });

  it("hands a turn's rows over at once, in id order, and marks none of them published when that fails", async () => {
    await ds.transaction(async (m) => {
      for (let i = 0; i < 5; i++) await writeOutbox(m, message(`evt_${i}`));
    });
    // The publish fails after it has sent part of the turn: every row of the turn stays pending.
    const failing = turnRelay(async () => Promise.reject(new Error('queue unavailable')), 3);
    await expect(failing.drain()).rejects.toThrow('queue unavailable');
    expect(await pending()).toBe(5);

    const turns: string[][] = [];
    expect(await turnRelay(async (rows) => void turns.push(rows.map((r) => r.message_id)), 3).drain()).toBe(5);
    expect(turns).toEqual([
      ['evt_0', 'evt_1', 'evt_2'],
      ['evt_3', 'evt_4'],
    ]);
    expect(await pending()).toBe(0);
  });

  it('shares the rows between concurrent relays without publishing one twice', async () => {
    await ds.transaction(async (m) => {
      for (let i = 0; i < 250; i++) await writeOutbox(m, message(`evt_${i}`));
    });
    const seen: string[] = [];
    const slow = async (row: OutboxRow) => {
      seen.push(row.message_id);
      await new Promise((r) => setTimeout(r, 1));
    };
    const counts = await Promise.all([relay(slow).drain(), relay(slow).drain()]);
    expect((counts[0] ?? 0) + (counts[1] ?? 0)).toBe(250);
    expect(new Set(seen).size).toBe(250);
    expect(seen).toHaveLength(250);
  });

  it('publishes within the time wakeWithin gives, or with an earlier wake, in one turn with the rows after', async () => {
    const turns: string[][] = [];
    const r = turnRelay(async (rows) => void turns.push(rows.map((row) => row.message_id)));
    try {
      await ds.transaction((m) => writeOutbox(m, message('evt_start')));
      const askedAt = Date.now();
      r.wakeWithin(150);
      await ds.transaction((m) => writeOutbox(m, message('evt_end')));
      // Nothing goes before the time asked, unless woken.
      expect(turns).toEqual([]);
      await until(() => turns.length > 0);
      expect(Date.now() - askedAt).toBeGreaterThanOrEqual(140);
      expect(turns).toEqual([['evt_start', 'evt_end']]);

      // A wake before the time publishes at once, and the time asked makes no turn of its own after it.
      await ds.transaction((m) => writeOutbox(m, message('evt_next')));
      r.wakeWithin(60_000);
      await ds.transaction((m) => writeOutbox(m, message('evt_final')));
      r.wake();
      await until(() => turns.length === 2);
      expect(turns[1]).toEqual(['evt_next', 'evt_final']);
      expect(await pending()).toBe(0);
    } finally {
      await r.stop();
    }
  });

  it('refuses a column name that is not one', async () => {
    await expect(
      ds.transaction((m) => writeOutbox(m, { ...message('x'), 'kind; drop table outbox': 1 })),
    ).rejects.toThrow('is not a column name');
  });
});
