import type { Context } from '@opentelemetry/api';
import { contextFromCarrier, type TraceCarrier, traceCarrierOf } from '@conduit/rpc-streams';

/**
 * The key of a job's data that carries the producer's W3C trace context, beside the payload the job's schema
 * describes. Present only when tracing is on: with it off, job data is exactly the payload.
 */
export const JOB_TRACE_KEY = '_trace';

/** Job data as sent: the payload, and the trace context when there is one. */
export type TracedJobData<T> = T & { [JOB_TRACE_KEY]?: TraceCarrier };

/**
 * Adds the trace context to a payload: the one it already carries (an outbox row written under the request that
 * caused it), else the active one. Answers the payload itself when there is none to add.
 */
export function withJobTrace<T>(data: T, carrier: TraceCarrier = traceCarrierOf()): T | TracedJobData<T> {
  const trace = traceOf(data) ?? carrier;
  if (!trace.traceparent || !data || typeof data !== 'object') return data;
  return { ...withoutTrace(data), [JOB_TRACE_KEY]: trace } as TracedJobData<T>;
}

/** A received job's payload (for its schema) and the context its producer sent (the root context when none). */
export function splitJobTrace(data: unknown): { payload: unknown; parent: Context } {
  const carrier = traceOf(data);
  if (!carrier) return { payload: data, parent: contextFromCarrier(undefined) };
  return { payload: withoutTrace(data as object), parent: contextFromCarrier(carrier) };
}

function traceOf(data: unknown): TraceCarrier | undefined {
  if (!data || typeof data !== 'object' || !Object.hasOwn(data, JOB_TRACE_KEY)) return undefined;
  const value: unknown = (data as Record<string, unknown>)[JOB_TRACE_KEY];
  if (!value || typeof value !== 'object') return {};
  const { traceparent, tracestate } = value as Record<string, unknown>;
  return {
    ...(typeof traceparent === 'string' && { traceparent }),
    ...(typeof tracestate === 'string' && { tracestate }),
  };
}

function withoutTrace(data: object): object {
  const payload = { ...(data as Record<string, unknown>) };
  delete payload[JOB_TRACE_KEY];
  return payload;
}
