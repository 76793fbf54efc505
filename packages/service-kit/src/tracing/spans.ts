// The span helpers services use, so that only service-kit and rpc-streams name OpenTelemetry in their dependencies.
export { SpanKind, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
export { contextFromCarrier, endSpan, inSpan, traceCarrierOf, type TraceCarrier } from '@conduit/rpc-streams';
