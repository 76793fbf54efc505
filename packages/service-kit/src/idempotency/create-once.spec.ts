import { AppError } from '@conduit/contracts';
import { type IdempotentRow, createOnce, idempotencyColumns } from './create-once.js';

interface Row extends IdempotentRow {
  id: string;
}

/** A table in memory: the contract of find/create is what is under test here; the services test it on PostgreSQL. */
function table() {
  const rows: Row[] = [];
  let made = 0;
  return {
    rows,
    find: async (key: string) => rows.find((r) => r.idempotencyKey === key) ?? null,
    insert: (row: IdempotentRow) => {
      if (row.idempotencyKey !== null && rows.some((r) => r.idempotencyKey === row.idempotencyKey))
        throw new Error('duplicate key');
      const created = { id: `r${++made}`, ...row };
      rows.push(created);
      return created;
    },
  };
}

const fp = (c: string) => c.repeat(64);

describe('createOnce', () => {
  it('creates without a key every time', async () => {
    const t = table();
    await createOnce(undefined, { find: t.find, create: async () => t.insert(idempotencyColumns(undefined)) });
    await createOnce(undefined, { find: t.find, create: async () => t.insert(idempotencyColumns(undefined)) });
    expect(t.rows).toHaveLength(2);
  });

  it('answers the row a key made instead of a second one, and 422 for the key with another request', async () => {
    const t = table();
    const key = { key: 'k-1', fingerprint: fp('a') };
    const first = await createOnce(key, { find: t.find, create: async () => t.insert(idempotencyColumns(key)) });
    const again = await createOnce(key, { find: t.find, create: async () => t.insert(idempotencyColumns(key)) });
    expect(again.id).toBe(first.id);
    expect(t.rows).toHaveLength(1);
    const other = { key: 'k-1', fingerprint: fp('b') };
    await expect(
      createOnce(other, { find: t.find, create: async () => t.insert(idempotencyColumns(other)) }),
    ).rejects.toMatchObject({
      code: 'idempotency_key_reused',
    });
  });

  it('answers the winner when its own insert lost the race, and the error when no row has the key', async () => {
    const t = table();
    const key = { key: 'k-2', fingerprint: fp('c') };
    // The other request commits between this one's look-up and its insert.
    const raced = await createOnce(key, {
      find: t.find,
      create: async () => {
        const winner = t.insert(idempotencyColumns(key));
        t.insert(idempotencyColumns(key));
        return winner;
      },
    });
    expect(raced.id).toBe('r1');
    const failing = new AppError('name_taken', 'taken');
    await expect(
      createOnce({ key: 'k-3', fingerprint: fp('d') }, { find: t.find, create: async () => Promise.reject(failing) }),
    ).rejects.toBe(failing);
  });
});
