// A handler's answer on its server span, through a real Nest microservice on Redis: a problem of the caller's
// (4xx) names its code and leaves the status unset; a fault of the server (5xx, or an error with no problem code)
// sets status error, as OpenTelemetry's HTTP and RPC conventions ask of server spans.
import 'reflect-metadata';
import { Controller, Module } from '@nestjs/common';
import { MessagePattern, RpcException } from '@nestjs/microservices';
import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { type Observable, throwError } from 'rxjs';
import { type RedisStreamsClient, rpcCall } from '../src/index.js';
import { useRedisSuite } from './support/redis-suite.js';
import { waitFor } from './support/redis.js';

@Controller()
class ItemsController {
  @MessagePattern('catalog.items.get')
  get(): unknown {
    return { id: 'i-1' };
  }

  @MessagePattern('catalog.items.missing')
  missing(): never {
    throw new RpcException({ code: 'not_found', detail: 'no such item' });
  }

  @MessagePattern('catalog.items.down')
  down(): never {
    throw new RpcException({ code: 'service_unavailable', detail: 'the database is not answering' });
  }

  @MessagePattern('catalog.items.crash')
  crash(): never {
    throw new Error('boom');
  }

  @MessagePattern('catalog.items.stream-fails')
  streamFails(): Observable<never> {
    return throwError(() => new RpcException({ code: 'internal', detail: 'the stream broke' }));
  }
}

@Module({ controllers: [ItemsController] })
class ItemsModule {}

describe('server spans of RPC handlers', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const suite = useRedisSuite();
  let client: RedisStreamsClient;

  beforeAll(async () => {
    provider.register();
    await suite.startService(ItemsModule, 'catalog');
    client = await suite.connectClient(3000);
  });

  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });

  /** The server span of one call, once it has ended (after the reply reached the client). */
  async function serverSpanOf(pattern: string) {
    exporter.reset();
    await rpcCall(client, pattern, {}).catch(() => undefined);
    // The client's span of the call has the same name; the server's is the one of kind SERVER.
    const served = () =>
      exporter.getFinishedSpans().find((s) => s.name === `rpc ${pattern}` && s.kind === SpanKind.SERVER);
    await waitFor(() => served() !== undefined, 2000, `the server span of ${pattern}`);
    const span = served()!;
    return { status: span.status.code, errorType: span.attributes['error.type'], events: span.events.length };
  }

  it('leaves a served answer and a problem of the caller unset, naming the problem code', async () => {
    expect(await serverSpanOf('catalog.items.get')).toEqual({
      status: SpanStatusCode.UNSET,
      errorType: undefined,
      events: 0,
    });
    expect(await serverSpanOf('catalog.items.missing')).toEqual({
      status: SpanStatusCode.UNSET,
      errorType: 'not_found',
      events: 0,
    });
  });

  it("marks the server's own faults as errors, with the exception recorded", async () => {
    expect(await serverSpanOf('catalog.items.down')).toEqual({
      status: SpanStatusCode.ERROR,
      errorType: 'service_unavailable',
      events: 1,
    });
    expect(await serverSpanOf('catalog.items.stream-fails')).toEqual({
      status: SpanStatusCode.ERROR,
      errorType: 'internal',
      events: 1,
    });
    // Nest answers an uncaught Error as { status: 'error', message }: no problem code, a fault all the same.
    expect(await serverSpanOf('catalog.items.crash')).toMatchObject({ status: SpanStatusCode.ERROR, events: 1 });
  });
});
