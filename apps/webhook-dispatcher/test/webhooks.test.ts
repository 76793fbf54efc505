import { describe, expect, it } from '@jest/globals';
import { useDispatcherSuite } from './support/dispatcher-suite.js';
import type { Page, Webhook } from '@conduit/contracts';
import { newTenant } from './support/db.js';
import { TEST_SECRETS_KEY } from './support/dispatcher-app.js';
import { SecretBox, sealFieldsForTransit } from '@conduit/secrets';
import { rpcCall } from '@conduit/rpc-streams';
import { rpcCtx } from '@conduit/testing';
import type { RpcReply } from '@conduit/contracts';

// The operator's default policy: https only, no private networks.
const SECRET = 'crud-secret-0123456789-abcdef';
const suite = useDispatcherSuite({
  dispatcher: { background: { events: false, deliveries: false, sweep: false, relay: false } },
});
const { caller, schema } = suite;

/** A public address literal: creating with it needs no DNS, and no request is ever sent in this suite. */
const PUBLIC_URL = 'https://93.184.215.14/hooks/conduit';

describe('webhooks CRUD', () => {
  it('creates, reads, lists, updates and deletes, never answering the secret', async () => {
    const t = newTenant();
    const created = await caller.call<Webhook>(t, 'webhooks.webhooks.create', {
      body: { url: PUBLIC_URL, events: ['job.completed'], secret: SECRET, description: 'ops' },
    });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    expect(created.data).toEqual({
      id: expect.stringMatching(/^whk_/),
      url: PUBLIC_URL,
      events: ['job.completed'],
      description: 'ops',
      status: 'active',
      disabled_reason: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
    });
    expect(created.etag).toEqual(expect.any(String));
    const id = created.data.id;
    expect(JSON.stringify(await caller.call(t, 'webhooks.webhooks.get', { id }))).not.toContain(SECRET);
    const [stored] = await suite.ds.query<{ secret_sealed: string }[]>(
      `SELECT secret_sealed FROM webhooks WHERE id = $1`,
      [id],
    );
    expect(stored?.secret_sealed).not.toContain(SECRET);

    const second = await caller.ok<Webhook>(t, 'webhooks.webhooks.create', {
      body: { url: PUBLIC_URL, events: ['job.failed'], secret: SECRET },
    });
    const page1 = await caller.ok<Page<Webhook>>(t, 'webhooks.webhooks.list', { query: { limit: 1 } });
    expect(page1.data.map((w) => w.id)).toEqual([second.id]);
    const page2 = await caller.ok<Page<Webhook>>(t, 'webhooks.webhooks.list', {
      query: { limit: 1, cursor: page1.next_cursor },
    });
    expect(page2).toEqual({ data: [expect.objectContaining({ id })], next_cursor: null });
    expect(
      (await caller.ok<Page<Webhook>>(newTenant(), 'webhooks.webhooks.list', { query: { limit: 50 } })).data,
    ).toEqual([]);

    const updated = await caller.ok<Webhook>(t, 'webhooks.webhooks.update', {
      id,
      body: { events: ['job.failed', 'alert.opened'], status: 'disabled' },
    });
    expect(updated).toMatchObject({
      id,
      url: PUBLIC_URL,
      events: ['job.failed', 'alert.opened'],
      description: 'ops',
      status: 'disabled',
      disabled_reason: 'manual',
    });
    const stale = await caller.call(t, 'webhooks.webhooks.update', {
      id,
      body: { description: null },
      if_match: created.etag,
    });
    expect(stale).toMatchObject({ ok: false, error: { code: 'precondition_failed' } });
    const enabled = await caller.ok<Webhook>(t, 'webhooks.webhooks.update', {
      id,
      body: { status: 'active', description: null },
    });
    expect(enabled).toMatchObject({ status: 'active', disabled_reason: null, description: null });

    expect(await caller.call(newTenant(), 'webhooks.webhooks.get', { id })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await caller.call(newTenant(), 'webhooks.webhooks.delete', { id })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await caller.call(t, 'webhooks.webhooks.delete', { id })).toEqual({ ok: true, data: null });
    expect(await caller.call(t, 'webhooks.webhooks.get', { id })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await caller.call(t, 'webhooks.deliveries.list', { webhook_id: id, query: { limit: 10 } })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await caller.call(t, 'webhooks.webhooks.get', { id: 'whk_nope' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('refuses unknown or empty events and short secrets, listing every field', async () => {
    const reply = await caller.call(newTenant(), 'webhooks.webhooks.create', {
      body: { url: PUBLIC_URL, events: [], secret: 'short' },
    });
    expect(reply).toMatchObject({ ok: false, error: { code: 'validation_failed' } });
    const paths = (reply as { error: { errors: { path: string }[] } }).error.errors.map((e) => e.path).sort();
    // Over RPC the paths start at the request data; the gateway checks the body itself first, with paths from its root.
    expect(paths).toEqual(['body.events']);
    const short = await caller.call(newTenant(), 'webhooks.webhooks.create', {
      body: { url: PUBLIC_URL, events: ['job.failed'], secret: 'short' },
    });
    expect(short).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', errors: [{ path: 'secret', code: 'invalid_secret' }] },
    });
    const unknown = await caller.call(newTenant(), 'webhooks.webhooks.create', {
      body: { url: PUBLIC_URL, events: ['job.exploded'], secret: SECRET },
    });
    expect(unknown).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', errors: [{ path: 'body.events[0]' }] },
    });
    const badWhsec = await caller.call(newTenant(), 'webhooks.webhooks.create', {
      body: { url: PUBLIC_URL, events: ['job.failed'], secret: 'whsec_not*base64*at-all!!' },
    });
    expect(badWhsec).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', errors: [{ path: 'secret', code: 'invalid_secret' }] },
    });
    expect(JSON.stringify(badWhsec)).not.toContain('not*base64');
  });
});

describe('secrets in transit', () => {
  it('refuses a secret in clear over RPC, and one sealed for another tenant, storing nothing', async () => {
    const t = newTenant();
    const clear = await caller.callRaw(t, 'webhooks.webhooks.create', {
      body: { url: PUBLIC_URL, events: ['job.failed'], secret: SECRET },
    });
    expect(clear).toMatchObject({ ok: false, error: { code: 'validation_failed', errors: [{ path: 'body.secret' }] } });
    const other = sealFieldsForTransit(
      new SecretBox(TEST_SECRETS_KEY),
      { url: PUBLIC_URL, events: ['job.failed'], secret: SECRET },
      ['secret'],
      newTenant(),
      'webhook',
    );
    const foreign = await caller.callRaw(t, 'webhooks.webhooks.create', { body: other });
    expect(foreign).toMatchObject({ ok: false });
    expect(await caller.ok<{ data: unknown[] }>(t, 'webhooks.webhooks.list', { query: { limit: 10 } })).toMatchObject({
      data: [],
    });
  });

  it('refuses a url carrying credentials in its query, as in user:password@', async () => {
    // By the RPC's schema, the one the gateway refuses it with before anything is sent (so the path is the envelope's).
    const reply = await caller.call(newTenant(), 'webhooks.webhooks.create', {
      body: { url: 'https://hooks.example.com/in?token=abc123', events: ['job.failed'], secret: SECRET },
    });
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', errors: [{ path: 'body.url', code: 'invalid_url' }] },
    });
    expect(JSON.stringify(reply)).not.toContain('abc123');
  });
});

describe('network policy (SSRF)', () => {
  const refused: [string, string][] = [
    ['http://93.184.215.14/hook', 'url_scheme_not_allowed'],
    ['ftp://93.184.215.14/hook', 'url_scheme_not_allowed'],
    ['https://127.0.0.1/hook', 'url_not_allowed'],
    ['https://localhost:8443/hook', 'url_not_allowed'],
    ['https://10.1.2.3/hook', 'url_not_allowed'],
    ['https://172.20.0.5/hook', 'url_not_allowed'],
    ['https://192.168.1.10/hook', 'url_not_allowed'],
    ['https://169.254.169.254/latest/meta-data/', 'url_not_allowed'],
    ['https://0.0.0.0/hook', 'url_not_allowed'],
    ['https://[::1]/hook', 'url_not_allowed'],
    ['https://[fd00:ec2::254]/hook', 'url_not_allowed'],
    ['https://[fe80::1]/hook', 'url_not_allowed'],
    ['https://[::ffff:127.0.0.1]/hook', 'url_not_allowed'],
    ['https://2130706433/hook', 'url_not_allowed'], // 127.0.0.1 written as one number
    ['https://user:pw@93.184.215.14/hook', 'invalid_url'],
    ['not a url', 'invalid_url'],
  ];

  it.each(refused)('refuses %s at create (%s)', async (url, code) => {
    const reply = await caller.call(newTenant(), 'webhooks.webhooks.create', {
      body: { url, events: ['job.failed'], secret: SECRET },
    });
    // The URL's shape is the shared schema's (`body.url` over RPC), the network policy the dispatcher's own (`url`).
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', errors: [{ path: expect.stringMatching(/^(body\.)?url$/), code }] },
    });
  });

  it('accepts a host name that does not resolve (as connectors do), still checking the rest of the body', async () => {
    // `.invalid` never resolves (RFC 2606): the name is checked again before every attempt.
    const url = 'https://hooks.example.invalid/conduit';
    const created = await caller.ok<Webhook>(newTenant(), 'webhooks.webhooks.create', {
      body: { url, events: ['job.failed'], secret: SECRET },
    });
    expect(created.url).toBe(url);
    expect(
      await caller.call(newTenant(), 'webhooks.webhooks.create', {
        body: { url, events: ['job.failed'], secret: 'whsec_not base64!!!!' },
      }),
    ).toMatchObject({ ok: false, error: { code: 'validation_failed', errors: [{ path: 'secret' }] } });
  });

  it('leaves a webhook as it is on a PATCH that changes nothing: same updated_at, same ETag', async () => {
    const t = newTenant();
    const body = { url: PUBLIC_URL, events: ['job.failed', 'alert.opened'], secret: SECRET, description: 'ops' };
    const created = await caller.call<Webhook>(t, 'webhooks.webhooks.create', { body });
    if (!created.ok) throw new Error(JSON.stringify(created.error));
    const id = created.data.id;
    for (const same of [{}, { url: PUBLIC_URL, events: ['job.failed', 'alert.opened'], description: 'ops' }]) {
      const again = await caller.call<Webhook>(t, 'webhooks.webhooks.update', { id, body: same });
      expect(again).toMatchObject({ ok: true, data: created.data, etag: created.etag });
    }
    // Anything that differs is a change: a new updated_at and ETag.
    const changed = await caller.call<Webhook>(t, 'webhooks.webhooks.update', {
      id,
      body: { events: ['alert.opened', 'job.failed'] },
    });
    if (!changed.ok) throw new Error(JSON.stringify(changed.error));
    expect(changed.data.events).toEqual(['alert.opened', 'job.failed']);
    expect(changed.etag).not.toBe(created.etag);
  });

  it('refuses a private address on update too', async () => {
    const t = newTenant();
    const webhook = await caller.ok<Webhook>(t, 'webhooks.webhooks.create', {
      body: { url: PUBLIC_URL, events: ['job.failed'], secret: SECRET },
    });
    const reply = await caller.call(t, 'webhooks.webhooks.update', {
      id: webhook.id,
      body: { url: 'https://169.254.169.254/' },
    });
    expect(reply).toMatchObject({
      ok: false,
      error: { code: 'validation_failed', errors: [{ path: 'url', code: 'url_not_allowed' }] },
    });
    expect((await caller.ok<Webhook>(t, 'webhooks.webhooks.get', { id: webhook.id })).url).toBe(PUBLIC_URL);
  });

  it('makes one webhook per Idempotency-Key and answers it again to a retry (never its secret)', async () => {
    const t = newTenant();
    const body = sealFieldsForTransit(
      new SecretBox(TEST_SECRETS_KEY),
      { url: PUBLIC_URL, events: ['job.failed'], secret: SECRET },
      ['secret'],
      t,
      'webhook',
    );
    const idempotency = { key: `whk-${t}`, fingerprint: 'a'.repeat(64) };
    const send = (ctx: Record<string, unknown>) =>
      rpcCall<RpcReply<Webhook>>(caller.client, 'webhooks.webhooks.create', {
        ctx: { ...rpcCtx(t), ...ctx },
        data: { body },
      });

    const [first, again] = await Promise.all([send({ idempotency }), send({ idempotency })]);
    if (!first.ok || !again.ok) throw new Error(JSON.stringify([first, again]));
    expect(again.data.id).toBe(first.data.id);
    expect(JSON.stringify(again)).not.toContain(SECRET);
    expect(await send({ idempotency: { ...idempotency, fingerprint: 'b'.repeat(64) } })).toMatchObject({
      ok: false,
      error: { code: 'idempotency_key_reused' },
    });
    const rows: unknown[] = await suite.ds.query(`SELECT id FROM "${schema}".webhooks WHERE tenant_id = $1`, [t]);
    expect(rows).toHaveLength(1);
  });

  it('never logged a secret', () => {
    expect(suite.dispatcher.logs()).not.toContain(SECRET);
  });
});
