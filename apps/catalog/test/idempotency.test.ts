import { describe, expect, it } from '@jest/globals';
import { randomBytes, randomUUID } from 'node:crypto';
import type { IdempotencyKey } from '@conduit/contracts';
import { useFreshCatalog, inTransit, localPostgresConfig, newTenant, rejection } from './support/catalog-db.js';

// Issue 16: a create keeps the client's Idempotency-Key on its row, unique per tenant, on the real PostgreSQL.
const cat = useFreshCatalog();

const idem = (key = randomUUID()): IdempotencyKey => ({ key, fingerprint: randomBytes(32).toString('hex') });

async function rowsWithKey(table: string, tenantId: string, key: string): Promise<number> {
  const rows: { n: string }[] = await cat.ds.query(
    `SELECT count(*) AS n FROM "${cat.schema}".${table} WHERE tenant_id = $1 AND idempotency_key = $2`,
    [tenantId, key],
  );
  return Number(rows[0]!.n);
}

/** Each creating operation, as the RPC controller calls it. */
const creates = {
  projects: (t: string, name: string, ctx: { idempotency?: IdempotencyKey; deadline?: number }) =>
    cat.projects.create(t, { name }, ctx),
  pipelines: (t: string, name: string, ctx: { idempotency?: IdempotencyKey; deadline?: number }) =>
    cat.pipelines.create(t, { name, dag: { nodes: [], edges: [] } }, ctx),
  connectors: (t: string, name: string, ctx: { idempotency?: IdempotencyKey; deadline?: number }) =>
    cat.connectors.create(t, { name, type: 'postgres', config: inTransit(cat.key, t, localPostgresConfig()) }, ctx),
};

describe.each(Object.entries(creates))('%s: create with an Idempotency-Key', (table, create) => {
  it('answers the row the key made, instead of a second one, and 422 for the key with another request', async () => {
    const t = newTenant();
    const key = idem();
    const first = await create(t, 'one', { idempotency: key });
    const again = await create(t, 'one', { idempotency: key });
    expect(again.data).toMatchObject({ id: first.data.id, name: 'one' });
    expect(await rowsWithKey(table, t, key.key)).toBe(1);

    const reused = await rejection(
      create(t, 'one', { idempotency: { key: key.key, fingerprint: idem().fingerprint } }),
    );
    expect(reused.code).toBe('idempotency_key_reused');
    // Keys are per tenant: another tenant's same key is its own resource.
    const other = newTenant();
    const theirs = await create(other, 'one', { idempotency: key });
    expect(theirs.data.id).not.toBe(first.data.id);
  });

  it('makes one row when two requests with one key race, and both answer it', async () => {
    const t = newTenant();
    const key = idem();
    const answers = await Promise.all([
      create(t, 'raced', { idempotency: key }),
      create(t, 'raced', { idempotency: key }),
    ]);
    expect(answers[1].data.id).toBe(answers[0].data.id);
    expect(await rowsWithKey(table, t, key.key)).toBe(1);
  });

  it('commits nothing once the caller has given up (its deadline passed), then a retry creates', async () => {
    const t = newTenant();
    const key = idem();
    const late = await rejection(create(t, 'late', { idempotency: key, deadline: Date.now() - 1 }));
    expect(late.code).toBe('service_unavailable');
    expect(await rowsWithKey(table, t, key.key)).toBe(0);
    const retried = await create(t, 'late', { idempotency: key, deadline: Date.now() + 5_000 });
    expect(retried.data.name).toBe('late');
    expect(await rowsWithKey(table, t, key.key)).toBe(1);
  });
});
