import { z } from 'zod';
import { handleRpc, rpcContextSchema } from './rpc.js';
import { isUsualEnvelope } from './rpc-envelope-check.js';

// The schema handleRpc parses envelopes with: the hand check may only ever say yes where this one does.
const envelopeSchema = z.strictObject({ ctx: rpcContextSchema, data: z.unknown() });

const ctx = { tenant_id: 'tnt_00000000000000000000000000', scopes: ['read', 'write'], request_id: 'req_1' };
const valid = { ctx, data: { id: 'prj_x' } };

/** Envelopes a foreign, stale or hostile sender could put on a stream, next to the valid ones. */
function corpus(): unknown[] {
  const withCtx = (patch: Record<string, unknown>) => ({ ctx: { ...ctx, ...patch }, data: { id: 'prj_x' } });
  const withoutCtxKey = (key: string) => {
    const copy: Record<string, unknown> = { ...ctx };
    delete copy[key];
    return { ctx: copy, data: null };
  };
  const sparse: unknown[] = ['read'];
  sparse[2] = 'write';
  return [
    valid,
    { ctx, data: null },
    { ctx, data: [1, 2] },
    { ctx: { ...ctx, scopes: [] }, data: 'x' },
    { ctx: { request_id: 'r', scopes: ['admin'], tenant_id: 't' }, data: 0 },
    withCtx({ tenant_id: 't'.repeat(64) }),
    withCtx({ request_id: 'r'.repeat(128) }),
    // Valid, but not the usual shape: zod decides.
    withCtx({ idempotency: { key: 'k', fingerprint: 'a'.repeat(64) } }),
    withCtx({ deadline: Date.now() + 1000 }),
    // Malformed.
    null,
    undefined,
    'envelope',
    42,
    [ctx, {}],
    {},
    { ctx },
    { data: {} },
    { ctx, data: {}, extra: 1 },
    { ctx, data: undefined },
    { ctx: null, data: {} },
    { ctx: [], data: {} },
    { ctx: 'tnt_1', data: {} },
    withCtx({ tenant_id: '' }),
    withCtx({ tenant_id: 't'.repeat(65) }),
    withCtx({ tenant_id: 7 }),
    withCtx({ request_id: '' }),
    withCtx({ request_id: 'r'.repeat(129) }),
    withCtx({ request_id: null }),
    withCtx({ scopes: ['root'] }),
    withCtx({ scopes: ['read', 'READ'] }),
    withCtx({ scopes: 'read' }),
    withCtx({ scopes: { 0: 'read', length: 1 } }),
    withCtx({ scopes: sparse }),
    withCtx({ scopes: [['read']] }),
    withCtx({ tenant: 'tnt_2' }),
    withCtx({ deadline: -1 }),
    withCtx({ deadline: 1.5 }),
    withCtx({ idempotency: { key: 'k' } }),
    withoutCtxKey('tenant_id'),
    withoutCtxKey('scopes'),
    withoutCtxKey('request_id'),
    Object.assign(Object.create(null) as object, valid),
    { ctx: Object.assign(Object.create(null) as object, ctx), data: {} },
    JSON.parse('{"ctx":{"tenant_id":"t","scopes":["read"],"request_id":"r","__proto__":{"x":1}},"data":{}}'),
    JSON.parse('{"ctx":{"tenant_id":"t","scopes":["read"],"request_id":"r"},"data":{},"__proto__":null}'),
  ];
}

describe('isUsualEnvelope', () => {
  it.each(corpus().map((message, i) => [i, message]))(
    'says yes only to what the envelope schema accepts, as it is (%i)',
    (_i, message) => {
      if (!isUsualEnvelope(message)) return;
      const parsed = envelopeSchema.safeParse(message);
      expect(parsed.success).toBe(true);
      expect(parsed.data).toEqual(message);
    },
  );

  it('says yes to the usual message, so it skips zod', () => {
    expect(isUsualEnvelope(valid)).toBe(true);
    expect(isUsualEnvelope(JSON.parse(JSON.stringify(valid)))).toBe(true);
    expect(isUsualEnvelope({ ctx: { ...ctx, scopes: [] }, data: null })).toBe(true);
  });

  it('leaves every malformed envelope to handleRpc, which refuses it as before', async () => {
    const malformed = corpus().filter((message) => !envelopeSchema.safeParse(message).success);
    expect(malformed.length).toBeGreaterThan(25);
    for (const message of malformed) {
      expect(isUsualEnvelope(message)).toBe(false);
      const reply = await handleRpc(
        'catalog.projects.get',
        message,
        async () => 'never',
        () => undefined,
      );
      expect(reply).toEqual({ ok: false, error: { code: 'internal', detail: 'malformed RPC envelope' } });
    }
  });

  it('still serves the valid envelopes that are not the usual shape, through zod', async () => {
    for (const extra of [{ deadline: Date.now() + 1000 }, { idempotency: { key: 'k', fingerprint: 'a'.repeat(64) } }]) {
      const message = { ctx: { ...ctx, ...extra }, data: { id: 'prj_x' } };
      expect(isUsualEnvelope(message)).toBe(false);
      const reply = await handleRpc(
        'catalog.projects.get',
        message,
        async (d, c) => ({ ...d, c }),
        () => undefined,
      );
      expect(reply).toEqual({ ok: true, data: { id: 'prj_x', c: message.ctx } });
    }
  });
});
