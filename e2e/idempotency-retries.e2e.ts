import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { type ApiResponse, call, expectProblem } from './support/client.js';
import { mintToken, uniqueName, waitFor } from './support/helpers.js';
import { useTargetStack } from './support/target-stack.js';

// Issue 16: a create retried with its Idempotency-Key after a 503 gets the one resource the key made. The catalog is
// held past the gateway's timeout by a row lock this test takes on the resource's unique name: the catalog's insert
// waits for it, the gateway answers 503, and the catalog, past its caller's deadline, commits nothing.
const RPC_TIMEOUT_MS = 1_000;
const HOLD_AFTER_503_MS = 1_000;

/** The platform's own database, where the catalog keeps what the key made. */
let db: pg.Client;
// Declared before the stack's hooks, so it runs before the stack stops (and its database goes).
afterAll(async () => {
  await db?.end();
});

const target = useTargetStack({
  env: { RPC_TIMEOUT_MS: String(RPC_TIMEOUT_MS), IDEMPOTENCY_HOLD_AFTER_503_MS: String(HOLD_AFTER_503_MS) },
});

beforeAll(async () => {
  db = new pg.Client({ connectionString: target.stack.databaseUrl });
  await db.connect();
});

/** A transaction holding a row with this name in the catalog's table, so the catalog's own insert of it waits. */
async function holdName(
  table: 'projects' | 'connectors',
  tenantId: string,
  name: string,
): Promise<{ release(): Promise<void> }> {
  const holder = new pg.Client({ connectionString: target.stack.databaseUrl });
  await holder.connect();
  await holder.query('begin');
  if (table === 'projects') {
    await holder.query(
      'insert into catalog.projects (id, tenant_id, name, created_at, updated_at) values ($1, $2, $3, now(), now())',
      [`prj_held_${randomUUID()}`, tenantId, name],
    );
  } else {
    await holder.query(
      "insert into catalog.connectors (id, tenant_id, name, type, config, created_at, updated_at) values ($1, $2, $3, 'postgres', '{}', now(), now())",
      [`con_held_${randomUUID()}`, tenantId, name],
    );
  }
  return {
    async release() {
      await holder.query('rollback');
      await holder.end();
    },
  };
}

const cases = {
  projects: (name: string) => ({ name }),
  connectors: (name: string) => ({
    name,
    type: 'postgres',
    config: target.targetDb.config({ password: 'idem-secret-123' }),
  }),
};

describe.each(Object.entries(cases))('POST /v2/%s retried with its Idempotency-Key after a 503', (table, bodyOf) => {
  it('answers 409 in progress meanwhile, then the one resource the key made, and replays it', async () => {
    const tenantId = `tnt_${randomUUID().replace(/-/g, '')}`;
    const bearer = await mintToken(target.stack, { tenant_id: tenantId });
    const name = uniqueName(`idem-${table}`);
    const body = bodyOf(name);
    const key = `retry-${randomUUID()}`;
    // A project or a connector: the test reads only what both have.
    const send = (): Promise<ApiResponse<{ id: string; name: string }>> =>
      call(target.stack, 'POST', `/v2/${table}`, { bearer, body, headers: { 'idempotency-key': key } });

    const held = await holdName(table as 'projects' | 'connectors', tenantId, name);
    let first: ApiResponse;
    try {
      const pending = send();
      await waitFor(
        async () => {
          const { rows } = await db.query<{ n: string }>(
            "select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
          );
          return Number(rows[0]!.n) > 0;
        },
        { what: 'the catalog to wait for the held row', timeoutMs: 20_000 },
      );
      // While the first request runs, the same key is 409 with Retry-After, a problem document.
      const during = await send();
      expectProblem(during, 409, 'idempotency_in_progress');
      expect(Number(during.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      first = await pending;
    } finally {
      await held.release();
    }
    expectProblem(first, 503, 'service_unavailable');
    expect(first.headers.get('retry-after')).toBeTruthy();

    // Right after the 503 the key is held (its work might still commit): 409 again, with Retry-After.
    const tooSoon = await send();
    expectProblem(tooSoon, 409, 'idempotency_in_progress');
    expect(Number(tooSoon.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const created = await waitFor(
      async () => {
        const res = await send();
        return res.status !== 409 && res;
      },
      { what: 'the retry to be accepted', timeoutMs: HOLD_AFTER_503_MS + 5_000 },
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v2/${table}/${created.body.id}`);
    expect(created.body).toMatchObject({ name });
    expect(created.text).not.toContain('idem-secret-123');

    const again = await send();
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(created.body.id);

    // Exactly one row with the key, and no other with the name: the 503'd attempt left nothing behind.
    const { rows } = await db.query<{ id: string; idempotency_key: string | null }>(
      `select id, idempotency_key from catalog.${table} where tenant_id = $1 and name = $2`,
      [tenantId, name],
    );
    expect(rows).toEqual([{ id: created.body.id, idempotency_key: key }]);
  });
});
