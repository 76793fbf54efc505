import { randomBytes, randomUUID } from 'node:crypto';
import pg from 'pg';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { startStack, stopProcess, type ServiceName, type Stack } from '@conduit/testing';
import { call } from './support/client.js';
import { create, createPipelineAndJob, triggerRun, uniqueName, waitFor, waitForRunEnd } from './support/helpers.js';
import { createTargetDatabase, type TargetDatabase } from './support/target-database.js';
import { Receiver } from '@conduit/testing';
import type { ConnectionTestResult } from '@conduit/contracts';

// SECRETS_KEY rotates as docs/security.md says: seal under A; every service that holds the key restarts with B and A
// as previous (the catalog and the dispatcher re-seal at start); then A is removed. A connector's password and a
// webhook's secret keep working at every step: Test Connection, a run, a signed delivery.
const KEY_HOLDERS: ServiceName[] = ['catalog', 'executor', 'webhook-dispatcher', 'gateway'];
const keyA = randomBytes(32).toString('hex');
const keyB = randomBytes(32).toString('hex');
const PASSWORD = `rotated-pw-${randomUUID()}`;
const WEBHOOK_SECRET = `rotated-whsec-${randomUUID()}`;
let stack: Stack;
let targetDb: TargetDatabase;
let receiver: Receiver;
let db: pg.Client;

beforeAll(async () => {
  targetDb = await createTargetDatabase();
  receiver = new Receiver();
  await receiver.start();
  stack = await startStack({
    SECRETS_KEY: keyA,
    CONNECTOR_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
  });
  db = new pg.Client({ connectionString: stack.databaseUrl });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await stack?.stop();
  await receiver?.stop();
  await targetDb?.drop();
});

/** Restarts the services that hold SECRETS_KEY with these keys; answers the stack as the new gateway serves it. */
async function restartKeyHolders(keys: Record<string, string>): Promise<Stack> {
  let baseUrl = stack.baseUrl;
  for (const name of KEY_HOLDERS) {
    const running = stack.processes.filter(
      (p) => p.name === name && p.child.exitCode === null && p.child.signalCode === null,
    );
    for (const p of running) await stopProcess(p.child);
    const started = await stack.startService(name, keys);
    if (name === 'gateway') baseUrl = `http://127.0.0.1:${started.port}`;
  }
  return { ...stack, baseUrl };
}

async function storedKeyIds(connectorId: string, webhookId: string): Promise<{ connector: string; webhook: string }> {
  const con = await db.query<{ v: string }>(`SELECT config->>'password' AS v FROM catalog.connectors WHERE id = $1`, [
    connectorId,
  ]);
  const hook = await db.query<{ v: string }>(`SELECT secret_sealed AS v FROM webhooks.webhooks WHERE id = $1`, [
    webhookId,
  ]);
  const kid = (v: string | undefined) =>
    /^enc:v2:([0-9a-f]{8}):/.exec(v ?? '')?.[1] ?? `not v2: ${String(v).slice(0, 8)}`;
  return { connector: kid(con.rows[0]?.v), webhook: kid(hook.rows[0]?.v) };
}

/** Test Connection, a run through the executor, and a signed ping: each works with the stored secrets. */
async function expectSecretsWork(
  api: Stack,
  ids: { connectorId: string; webhookId: string; jobId: string; path: string },
): Promise<void> {
  const tested = await call<ConnectionTestResult>(api, 'POST', `/v2/connectors/${ids.connectorId}/test`);
  expect({ status: tested.status, ok: tested.body?.ok, message: tested.body?.message }).toMatchObject({
    status: 200,
    ok: true,
  });
  const run = await triggerRun(api, ids.jobId);
  expect((await waitForRunEnd(api, ids.jobId, run.id)).status).toBe('succeeded');
  const before = receiver.requests(ids.path).length;
  expect((await call(api, 'POST', `/v2/webhooks/${ids.webhookId}/test`)).status).toBe(202);
  await waitFor(async () => receiver.requests(ids.path).length > before, {
    what: 'the signed ping',
    timeoutMs: 20_000,
  });
  const got = receiver.requests(ids.path).at(-1)!;
  const verified = new StandardWebhook(Buffer.from(WEBHOOK_SECRET, 'utf8').toString('base64')).verify(
    got.body,
    got.headers,
  ) as { type: string };
  expect(verified.type).toBe('ping');
}

it('rotates SECRETS_KEY from A to B: add B with A previous, re-seal at start, remove A; every secret still works', async () => {
  const connector = await create(stack, '/v2/connectors', {
    name: uniqueName('pg'),
    type: 'postgres',
    config: targetDb.config({ password: PASSWORD }),
  });
  const endpoint = receiver.endpoint();
  const webhook = await create(stack, '/v2/webhooks', {
    url: endpoint.url,
    events: ['job.failed'],
    secret: WEBHOOK_SECRET,
  });
  const dag = { nodes: [{ id: 'q', type: 'sql', config: { connector_id: connector.id, sql: 'select 1' } }], edges: [] };
  const { jobId } = await createPipelineAndJob(stack, dag);
  const ids = { connectorId: connector.id, webhookId: webhook.id, jobId, path: endpoint.path };
  await expectSecretsWork(stack, ids);
  const underA = await storedKeyIds(connector.id, webhook.id);
  expect(underA.connector).toMatch(/^[0-9a-f]{8}$/);
  expect(underA.webhook).toBe(underA.connector);

  const rotating = await restartKeyHolders({ SECRETS_KEY: keyB, SECRETS_KEYS_PREVIOUS: keyA });
  const underB = await storedKeyIds(connector.id, webhook.id);
  expect(underB.connector).toMatch(/^[0-9a-f]{8}$/);
  expect(underB.connector).not.toBe(underA.connector);
  expect(underB.webhook).toBe(underB.connector);
  expect(stack.logs()).toMatch(/secrets re-sealed under the current key/);
  await expectSecretsWork(rotating, ids);

  const rotated = await restartKeyHolders({ SECRETS_KEY: keyB });
  expect(await storedKeyIds(connector.id, webhook.id)).toEqual(underB);
  await expectSecretsWork(rotated, ids);
  for (const secret of [PASSWORD, WEBHOOK_SECRET, keyA, keyB]) expect(stack.logs()).not.toContain(secret);
});
