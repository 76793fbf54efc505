// W3C trace context carried inside our own messages (RPC entries, queue jobs), so one run is one trace across
// processes. Without a registered OpenTelemetry SDK every call here is the API's no-op: nothing is written or read.
import { isErrorCode, statusOf } from '@conduit/contracts';
import {
  type Context,
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  trace,
} from '@opentelemetry/api';

// What the global provider delegates to while no SDK has registered one.
const NOOP_PROVIDER = new ProxyTracerProvider().getDelegate();
/** The span handed to work while tracing is off: recording nothing, shared. */
const OFF_SPAN = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Whether an SDK has registered a tracer provider. Off, the RPC and queue paths skip spans and contexts altogether
 * rather than make no-op ones: the API's no-ops are cheap, but not free on every request.
 */
export function tracingActive(): boolean {
  const provider = trace.getTracerProvider();
  // Another copy of the API registered globally is not ours to judge: treated as on.
  return !(provider instanceof ProxyTracerProvider) || provider.getDelegate() !== NOOP_PROVIDER;
}

/** The W3C Trace Context fields a message may carry; both optional (absent when tracing is off or unsampled). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

const setter: TextMapSetter<TraceCarrier> = {
  set(carrier, key, value) {
    // Only the W3C fields: a baggage header, if some propagator added one, has no place in our messages.
    if (key === 'traceparent' || key === 'tracestate') carrier[key] = value;
  },
};

const getter: TextMapGetter<TraceCarrier> = {
  keys: (carrier) => Object.keys(carrier).filter((key) => key === 'traceparent' || key === 'tracestate'),
  get: (carrier, key) => (key === 'traceparent' || key === 'tracestate' ? carrier[key] : undefined),
};

/** The trace context of `ctx` (default: the active one) as message fields; `{}` when there is none to send. */
export function traceCarrierOf(ctx?: Context): TraceCarrier {
  const carrier: TraceCarrier = {};
  if (!tracingActive()) return carrier;
  propagation.inject(ctx ?? context.active(), carrier, setter);
  return carrier;
}

/** The context a received message's fields continue (the root context when they carry none). */
export function contextFromCarrier(carrier: TraceCarrier | undefined): Context {
  if (!carrier?.traceparent) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, carrier, getter);
}

/** Ends a span with the outcome of the work it covered: an error sets status error with the error's class. */
export function endSpan(span: Span, err?: unknown): void {
  if (err !== undefined) {
    const { name, message } = errorParts(err);
    span.recordException({ name, message });
    span.setAttribute('error.type', name);
    span.setStatus({ code: SpanStatusCode.ERROR, message });
  }
  span.end();
}

/**
 * A handler's failed answer on its server span. The span carries the problem's code as `error.type` always, but its
 * status is error only when the fault is the server's (a 5xx code, or an error with no problem code): a `not_found`
 * or `validation_failed` answer is the service working, as an HTTP server span's 4xx is.
 */
export function recordAnswerError(span: Span, err: unknown): void {
  if (!span.isRecording()) return;
  const code = (err as { code?: unknown } | null)?.code;
  if (isErrorCode(code)) {
    span.setAttribute('error.type', code);
    if (statusOf(code) < 500) return;
  }
  const { name, message } = errorParts(err);
  span.recordException({ name, message });
  if (!isErrorCode(code)) span.setAttribute('error.type', name);
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

/** An error's class and message; an error that crossed the wire is a plain object with those fields. */
function errorParts(err: unknown): { name: string; message: string } {
  if (err instanceof Error) return { name: err.name, message: err.message };
  if (err && typeof err === 'object') {
    const { name, message } = err as { name?: unknown; message?: unknown };
    return { name: typeof name === 'string' ? name : 'Error', message: typeof message === 'string' ? message : '' };
  }
  return { name: 'Error', message: typeof err === 'string' ? err : '' };
}

/**
 * Runs `work` in a new span that is a child of `parent` (a received message's context; default the active one) and
 * active meanwhile, so the spans of the pg/ioredis/http calls it makes are its children. The span ends when `work`
 * settles.
 */
export async function inSpan<T>(
  name: string,
  kind: SpanKind,
  parent: Context | undefined,
  work: (span: Span) => Promise<T>,
  tracerName = '@conduit/rpc-streams',
): Promise<T> {
  if (!tracingActive()) return work(OFF_SPAN);
  const from = parent ?? context.active();
  const span = trace.getTracer(tracerName).startSpan(name, { kind }, from);
  try {
    const result = await context.with(trace.setSpan(from, span), () => work(span));
    endSpan(span);
    return result;
  } catch (err) {
    endSpan(span, err);
    throw err;
  }
}

export { SpanKind, type Span };
