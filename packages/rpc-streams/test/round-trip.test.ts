import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { Ctx, EventPattern, MessagePattern, Payload, RpcException } from '@nestjs/microservices';
import { EmptyError, firstValueFrom, type Observable, of, toArray } from 'rxjs';
import { type RedisStreamsClient, RedisStreamsContext, replyChannel, requestStreamKey, rpcCall } from '../src/index.js';
import { pendingCount, waitFor } from './support/redis.js';
import { useRedisSuite } from './support/redis-suite.js';

const received: { events: unknown[]; metadata: unknown[] } = { events: [], metadata: [] };

@Controller()
class CatalogController {
  @MessagePattern('catalog.items.echo')
  echo(@Payload() data: unknown): unknown {
    return data;
  }

  @MessagePattern('catalog.items.fail')
  fail(): never {
    throw new Error('boom');
  }

  @MessagePattern('catalog.items.reject')
  reject(): never {
    throw new RpcException({ code: 'not_found', detail: 'no such item' });
  }

  @MessagePattern('catalog.items.context')
  context(@Ctx() ctx: RedisStreamsContext): unknown {
    received.metadata.push(ctx.getMetadata());
    return { pattern: ctx.getPattern(), entry: ctx.getEntryId() };
  }

  @MessagePattern('catalog.items.async')
  async later(@Payload() data: { n: number }): Promise<number> {
    await new Promise((resolve) => setTimeout(resolve, 20));
    return data.n * 2;
  }

  @MessagePattern('catalog.items.nothing')
  nothing(): void {
    return undefined;
  }

  @MessagePattern('catalog.items.stream')
  stream(): Observable<number> {
    return of(1, 2, 3);
  }

  @MessagePattern('catalog.items.large')
  large(@Payload() data: { mib: number }): { text: string } {
    return { text: 'x'.repeat(data.mib * 1024 * 1024) };
  }

  @MessagePattern('catalog.items.largeStream')
  largeStream(): Observable<string> {
    return of('a'.repeat(300 * 1024), 'b', 'c'.repeat(300 * 1024), 'd');
  }

  @EventPattern('catalog.items.touched')
  touched(@Payload() data: unknown): void {
    received.events.push(data);
  }
}

@Module({ controllers: [CatalogController] })
class CatalogModule {}

describe('RedisStreams transport through a Nest microservice', () => {
  const suite = useRedisSuite();
  const { prefix } = suite;
  let client: RedisStreamsClient;

  beforeAll(async () => {
    await suite.startService(CatalogModule, 'catalog');
    client = await suite.connectClient(3000);
  });

  it('brings JSON back intact', async () => {
    const payload = {
      name: 'Zoë 🚀',
      nested: { list: [1, 2.5, null, true, 'x'], empty: {} },
      created_at: '2025-01-02T03:04:05.678Z',
      big: Number.MAX_SAFE_INTEGER,
    };
    await expect(rpcCall(client, 'catalog.items.echo', payload)).resolves.toEqual(payload);
    await expect(rpcCall(client, 'catalog.items.echo', 'plain string')).resolves.toBe('plain string');
    await expect(rpcCall(client, 'catalog.items.async', { n: 21 })).resolves.toBe(42);
  });

  it('routes each of many concurrent replies to its own call, in fewer PUBLISHes than calls', async () => {
    // A second listener on the client's reply channel counts the messages published to it.
    const listener = suite.redis.duplicate();
    let messages = 0;
    listener.on('message', () => (messages += 1));
    await listener.subscribe(replyChannel(prefix, client.clientId));
    const calls = Array.from({ length: 200 }, (_, i) =>
      rpcCall(client, i % 10 === 9 ? 'catalog.items.reject' : 'catalog.items.echo', { i }).then(
        (value) => ({ i, value }),
        (err: unknown) => ({ i, err }),
      ),
    );
    const answers = await Promise.all(calls);
    for (const answer of answers) {
      expect(answer).toEqual(
        answer.i % 10 === 9
          ? { i: answer.i, err: { code: 'not_found', detail: 'no such item' } }
          : { i: answer.i, value: { i: answer.i } },
      );
    }
    // Replies finished in the same turn travel together.
    await waitFor(() => messages > 0, 2000, 'the listener to hear the replies');
    listener.disconnect();
    expect(messages).toBeGreaterThan(0);
    expect(messages).toBeLessThan(200);
  });

  it("brings a reply past Redis's pub/sub limit back whole, with the calls beside it, by reference", async () => {
    // 40 MiB: Redis drops a subscriber whose pending pub/sub output passes 32 MB, failing every call waiting on it.
    // Its own client, with time for 40 MiB to be made, stored and read on a busy CI machine: what is tested is that
    // the reply and the calls beside it arrive whole, not how fast (3 s ran out once while other suites ran beside it).
    const patient = await suite.connectClient(30_000);
    const beside = Array.from({ length: 20 }, (_, i) => rpcCall(patient, 'catalog.items.echo', { i }));
    const large = await rpcCall<{ text: string }>(patient, 'catalog.items.large', { mib: 40 });
    expect(large.text.length).toBe(40 * 1024 * 1024);
    await expect(Promise.all(beside)).resolves.toEqual(Array.from({ length: 20 }, (_, i) => ({ i })));
    // Taken as it was read: nothing of it stays in Redis.
    expect(await suite.redis.keys(`${replyChannel(prefix, patient.clientId)}:*`)).toEqual([]);
  }, 60_000);

  it('keeps a stream of large and small values in order', async () => {
    const values = await firstValueFrom(client.send<string>('catalog.items.largeStream', {}).pipe(toArray()));
    expect(values.map((v) => `${v[0]}${v.length}`)).toEqual([`a${300 * 1024}`, 'b1', `c${300 * 1024}`, 'd1']);
  });

  it('surfaces a handler that throws as an error on the client', async () => {
    await expect(rpcCall(client, 'catalog.items.fail', {})).rejects.toEqual({
      status: 'error',
      message: 'Internal server error',
    });
    // An RpcException carrying an object travels as that object (Nest's own behaviour).
    await expect(rpcCall(client, 'catalog.items.reject', {})).rejects.toEqual({
      code: 'not_found',
      detail: 'no such item',
    });
  });

  it('answers a pattern with no handler with an error, and rejects a pattern with no service', async () => {
    await expect(rpcCall(client, 'catalog.items.unknown', {})).rejects.toBe(
      'There is no matching message handler defined in the remote service.',
    );
    await expect(rpcCall(client, 'noservice', {})).rejects.toThrow(/must look like <service>/);
  });

  it('completes the observable with exactly one value', async () => {
    const values = await firstValueFrom(client.send('catalog.items.echo', { a: 1 }).pipe(toArray()));
    expect(values).toEqual([{ a: 1 }]);
  });

  it('answers request() as firstValueFrom(send()) does: a stream by its first value, nothing by EmptyError', async () => {
    await expect(client.request('catalog.items.stream', {})).resolves.toBe(1);
    await expect(firstValueFrom(client.send('catalog.items.stream', {}))).resolves.toBe(1);
    await expect(client.request('catalog.items.nothing', {})).rejects.toBeInstanceOf(EmptyError);
    await expect(firstValueFrom(client.send('catalog.items.nothing', {}))).rejects.toBeInstanceOf(EmptyError);
  });

  it('passes dispatch-hook metadata to the handler context', async () => {
    client.setOnDispatchHook((packet) => {
      packet.metadata = { request_id: 'req-1', tenant: 't-1' };
    });
    try {
      const reply = await rpcCall<{ pattern: string; entry: string }>(client, 'catalog.items.context', {});
      expect(reply.pattern).toBe('catalog.items.context');
      expect(reply.entry).toMatch(/^\d+-\d+$/);
      expect(received.metadata).toEqual([{ request_id: 'req-1', tenant: 't-1' }]);
    } finally {
      client.setOnDispatchHook(() => undefined);
    }
  });

  it('delivers an emitted event to the handler once', async () => {
    await firstValueFrom(client.emit('catalog.items.touched', { id: 'i-1' }), { defaultValue: undefined });
    await waitFor(() => received.events.length === 1, 5000, 'the event handler');
    expect(received.events).toEqual([{ id: 'i-1' }]);
  });

  it('acks and deletes every handled entry', async () => {
    await Promise.all(Array.from({ length: 50 }, (_, i) => rpcCall(client, 'catalog.items.echo', { i })));
    const stream = requestStreamKey(prefix, 'catalog');
    await waitFor(async () => (await pendingCount(suite.redis, stream, 'catalog')) === 0, 5000, 'no pending entries');
    await waitFor(async () => (await suite.redis.xlen(stream)) === 0, 5000, 'an empty stream');
  });
});
