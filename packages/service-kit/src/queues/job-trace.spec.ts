import { context, trace } from '@opentelemetry/api';
import { JOB_TRACE_KEY, splitJobTrace, withJobTrace } from './job-trace.js';
import { useTracing } from '../../test/support/tracing.js';

const command = { run_id: 'run_1', tenant_id: 't_1' };
const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('trace context in job data', () => {
  it('leaves the payload as it is when there is no context to send (tracing off)', () => {
    expect(withJobTrace(command)).toBe(command);
    expect(splitJobTrace(command).payload).toBe(command);
    expect(trace.getSpanContext(splitJobTrace(command).parent)).toBeUndefined();
  });

  describe('with an SDK registered', () => {
    useTracing();

    it("sends the active span's context and gives the consumer the payload and that context", () => {
      const span = trace.getTracer('test').startSpan('rpc scheduler.runs.trigger');
      const sent = context.with(trace.setSpan(context.active(), span), () => withJobTrace(command));
      span.end();
      expect(sent).toEqual({ ...command, [JOB_TRACE_KEY]: { traceparent: expect.stringMatching(/^00-/) as string } });

      const { payload, parent } = splitJobTrace(JSON.parse(JSON.stringify(sent)));
      expect(payload).toEqual(command);
      expect(trace.getSpanContext(parent)).toMatchObject({
        traceId: span.spanContext().traceId,
        spanId: span.spanContext().spanId,
        isRemote: true,
      });
    });

    it('keeps the context an outbox row was written with over the active one', () => {
      const written = { ...command, [JOB_TRACE_KEY]: { traceparent: TRACEPARENT } };
      const span = trace.getTracer('test').startSpan('outbox relay');
      const sent = context.with(trace.setSpan(context.active(), span), () => withJobTrace(written));
      span.end();
      expect(sent).toEqual(written);
    });

    it('strips a malformed trace field and continues no context', () => {
      const { payload, parent } = splitJobTrace({ ...command, [JOB_TRACE_KEY]: 'nonsense' });
      expect(payload).toEqual(command);
      expect(trace.getSpanContext(parent)).toBeUndefined();
    });
  });
});
