import type { WritePacket } from '@nestjs/microservices';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { endSpan, type TraceCarrier, traceCarrierOf, tracingActive } from './trace-context.js';

const tracer = trace.getTracer('@conduit/rpc-streams');

/** A call's client span: the callback that ends it with the call's final packet, and the context to send. */
export interface CallSpan {
  callback: (packet: WritePacket) => void;
  carrier: TraceCarrier;
}

/** Starts `rpc <pattern>` (kind client) as a child of the active context. */
export function startCallSpan(pattern: string, onPacket: (packet: WritePacket) => void): CallSpan {
  if (!tracingActive()) return { callback: onPacket, carrier: {} };
  const active = context.active();
  const span = tracer.startSpan(
    `rpc ${pattern}`,
    { kind: SpanKind.CLIENT, attributes: { 'rpc.system': 'redis-streams', 'rpc.method': pattern } },
    active,
  );
  let open = true;
  const callback = (packet: WritePacket) => {
    if (open && (packet.err != null || packet.isDisposed === true)) {
      open = false;
      endSpan(span, packet.err ?? undefined);
    }
    onPacket(packet);
  };
  return { callback, carrier: traceCarrierOf(trace.setSpan(active, span)) };
}
