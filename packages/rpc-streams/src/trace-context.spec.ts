import { context, propagation, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { startCallSpan } from './call-span.js';
import { contextFromCarrier, inSpan, traceCarrierOf } from './trace-context.js';
import { decodeRequest, encodeRequest, MESSAGE_FIELD, type RequestMessage } from './wire.js';

const request = (extra: Partial<RequestMessage>): RequestMessage => ({
  id: 'r-1',
  pattern: 'scheduler.runs.trigger',
  data: { job_id: 'j-1' },
  reply: 'conduit:rpc:reply:c-1',
  ...extra,
});
const overTheWire = (message: RequestMessage) => decodeRequest([MESSAGE_FIELD, encodeRequest(message)]);

describe('trace context in the RPC envelope', () => {
  describe('with no SDK registered (tracing off)', () => {
    it('writes no field and continues no context', async () => {
      const { carrier, callback } = startCallSpan('scheduler.runs.trigger', () => undefined);
      expect(carrier).toEqual({});
      expect(traceCarrierOf()).toEqual({});
      callback({ response: 1, isDisposed: true });
      const received = overTheWire(request(carrier));
      expect(received).not.toHaveProperty('traceparent');
      await inSpan('rpc x', SpanKind.SERVER, contextFromCarrier(received), (span) => {
        expect(span.isRecording()).toBe(false);
        return Promise.resolve();
      });
    });
  });

  describe('with an SDK registered', () => {
    const exporter = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

    beforeAll(() => provider.register());
    afterEach(() => exporter.reset());
    afterAll(async () => {
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    });

    it('carries the client span to the server span, which is its child in the same trace', async () => {
      const caller = trace.getTracer('test').startSpan('http GET /v1/jobs/j-1/runs');
      const { carrier, callback } = context.with(trace.setSpan(context.active(), caller), () =>
        startCallSpan('scheduler.runs.trigger', () => undefined),
      );
      expect(carrier.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

      const received = overTheWire(request(carrier));
      expect(received.traceparent).toBe(carrier.traceparent);
      const inner = await inSpan('rpc scheduler.runs.trigger', SpanKind.SERVER, contextFromCarrier(received), () =>
        // What the handler's own calls (pg, ioredis) would see as their parent.
        Promise.resolve(trace.getActiveSpan()?.spanContext().spanId),
      );
      callback({ response: { ok: true }, isDisposed: true });
      caller.end();

      const spans = exporter.getFinishedSpans();
      const client = spans.find((s) => s.kind === SpanKind.CLIENT);
      const server = spans.find((s) => s.kind === SpanKind.SERVER);
      expect(client?.name).toBe('rpc scheduler.runs.trigger');
      expect(client?.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
      expect(server?.spanContext().traceId).toBe(caller.spanContext().traceId);
      expect(server?.parentSpanContext?.spanId).toBe(client?.spanContext().spanId);
      expect(inner).toBe(server?.spanContext().spanId);
    });

    it('ends the client span with status error and the error class when the call fails', () => {
      const { callback } = startCallSpan('catalog.pipelines.get', () => undefined);
      callback({ err: { name: 'RpcTimeoutError', message: 'no reply within 5000 ms' } });
      const [span] = exporter.getFinishedSpans();
      expect(span?.status).toEqual({ code: 2, message: 'no reply within 5000 ms' });
      expect(span?.attributes['error.type']).toBe('RpcTimeoutError');
    });

    it('starts a new trace for a message without trace fields, and records a failing handler', async () => {
      await expect(
        inSpan('rpc catalog.projects.get', SpanKind.SERVER, contextFromCarrier(overTheWire(request({}))), () =>
          Promise.reject(new TypeError('boom')),
        ),
      ).rejects.toThrow('boom');
      const [span] = exporter.getFinishedSpans();
      expect(span?.parentSpanContext).toBeUndefined();
      expect(span?.attributes['error.type']).toBe('TypeError');
    });
  });
});
