// The typed client over the real transport: a catalog replica whose handlers answer, on purpose, what a well-behaved
// service, a failing one and a broken one (another version, a bug) would, so the client's parsing and errors are seen.
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, type RpcContext, type RpcReply } from '@conduit/contracts';
import { type RedisStreamsClient, RpcClient, RpcRemoteError, RpcTimeoutError } from '../src/index.js';
import { useRedisSuite } from './support/redis-suite.js';

const at = '2026-11-25T10:00:00.000Z';
const project = { id: 'prj_1', name: 'p', description: null, template: null, created_at: at, updated_at: at };

/** What `catalog.projects.get` answers, by the id asked for. */
const REPLIES: Record<string, unknown> = {
  good: { ok: true, data: project, etag: '"e1"' },
  missing: { ok: false, error: { code: 'not_found', detail: 'no project with that id' } },
  down: {
    ok: false,
    error: { code: 'service_unavailable', detail: 'the database is unavailable', dependency: 'database' },
  },
  invalid: {
    ok: false,
    error: {
      code: 'validation_failed',
      detail: '1 field is invalid',
      errors: [{ path: 'id', code: 'too_big', message: 'too long' }],
    },
  },
  // A field the contract does not know (another version of the service): refused, never passed on.
  extra: { ok: true, data: { ...project, tenant_id: 'tnt_secret' } },
  wrong: { ok: true, data: { ...project, created_at: 42 } },
  foreign: { hello: 'world' },
  unknownCode: { ok: false, error: { code: 'teapot', detail: 'x' } },
};

@Controller()
class CatalogController {
  @MessagePattern('catalog.projects.get')
  get(@Payload() message: { data: { id: string } }): unknown {
    return REPLIES[message.data.id];
  }

  @MessagePattern('catalog.projects.delete')
  delete(): RpcReply<null> {
    return { ok: true, data: null };
  }

  /** Slower than the calls are willing to wait. */
  @MessagePattern('catalog.templates.list')
  async templates(): Promise<RpcReply<{ data: [] }>> {
    await new Promise((resolve) => setTimeout(resolve, 600));
    return { ok: true, data: { data: [] } };
  }
}

@Module({ controllers: [CatalogController] })
class CatalogModule {}

const ctx: RpcContext = { tenant_id: 'tnt_1', scopes: ['read'], request_id: 'req_1' };

describe('RpcClient', () => {
  const suite = useRedisSuite();
  let transport: RedisStreamsClient;
  let rpc: RpcClient;

  beforeAll(async () => {
    await suite.startService(CatalogModule, 'catalog');
    transport = await suite.connectClient(3000);
    rpc = new RpcClient(transport);
  });

  const failure = (id: string, client = rpc): Promise<unknown> =>
    client.call('catalog.projects.get', { ctx, data: { id } }).then(
      () => {
        throw new Error(`the call for "${id}" succeeded`);
      },
      (err: unknown) => err,
    );

  it("resolves with the reply's data parsed with the response schema, and its ETag", async () => {
    const data = await rpc.call('catalog.projects.get', { ctx, data: { id: 'good' } });
    expect(data).toEqual(project);
    expect(await rpc.answer('catalog.projects.get', { ctx, data: { id: 'good' } })).toEqual({
      data: project,
      etag: '"e1"',
    });
    expect(await rpc.call('catalog.projects.delete', { ctx, data: { id: 'x' } })).toBeNull();
  });

  it('rejects with an RpcRemoteError carrying the problem the service answered', async () => {
    const missing = await failure('missing');
    expect(missing).toBeInstanceOf(RpcRemoteError);
    expect(missing).toBeInstanceOf(AppError);
    const err = missing as RpcRemoteError;
    expect([err.pattern, err.code, err.status, err.message, err.malformed]).toEqual([
      'catalog.projects.get',
      'not_found',
      404,
      'no project with that id',
      false,
    ]);

    const down = (await failure('down')) as RpcRemoteError;
    expect(down.problem).toEqual({
      code: 'service_unavailable',
      detail: 'the database is unavailable',
      dependency: 'database',
    });
    expect(down.status).toBe(503);
    const invalid = (await failure('invalid')) as RpcRemoteError;
    expect(invalid.errors).toEqual([{ path: 'id', code: 'too_big', message: 'too long' }]);
  });

  it('rejects a reply that does not parse with a malformed RpcRemoteError naming the pattern, and never passes it on', async () => {
    for (const id of ['extra', 'wrong', 'foreign', 'unknownCode']) {
      const err = await failure(id);
      expect(err).toBeInstanceOf(RpcRemoteError);
      expect(err).toMatchObject({ pattern: 'catalog.projects.get', code: 'internal', status: 500, malformed: true });
      expect((err as Error).message).toBe('the catalog service answered catalog.projects.get with a malformed reply');
      expect(JSON.stringify(err)).not.toContain('tnt_secret');
    }
  });

  it('rejects an error answered outside the envelope (no handler for the pattern) as malformed', async () => {
    const err = await rpc.call('catalog.connectors.get', { ctx, data: { id: 'con_1' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcRemoteError);
    expect(err).toMatchObject({ pattern: 'catalog.connectors.get', code: 'internal', malformed: true });
  });

  it('passes the data on unchecked when told not to parse, but still refuses a foreign envelope', async () => {
    const trusting = new RpcClient(transport, { parseReplies: false });
    expect(await trusting.call('catalog.projects.get', { ctx, data: { id: 'extra' } })).toEqual({
      ...project,
      tenant_id: 'tnt_secret',
    });
    expect(await failure('foreign', trusting)).toMatchObject({ malformed: true });
  });

  it('rejects with an RpcTimeoutError when no reply comes in time', async () => {
    const err = await rpc
      .call('catalog.templates.list', { ctx, data: {} }, { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcTimeoutError);
    expect(err).not.toBeInstanceOf(RpcRemoteError);
    expect(err).toMatchObject({ pattern: 'catalog.templates.list', timeoutMs: 200 });
  });
});
