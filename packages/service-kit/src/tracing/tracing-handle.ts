/** A started tracing SDK: shutdown flushes and stops it; spans still buffered are sent first. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/** What a service's traces may hold; the defaults suit a service that talks only to the platform's own stores. */
export interface TracingOptions {
  /**
   * Trace the `pg` driver (default true). False where pg talks to tenants' databases (the executor's connectors):
   * even with statement text redacted, a driver error recorded on a span can quote a tenant's values.
   */
  instrumentPg?: boolean;
  /**
   * Continue a `traceparent` sent by the HTTP client (default true). False at the public edge (the gateway): a
   * client must not choose the trace id, force sampling of everything behind it, or send its tracestate on to
   * webhook receivers, so each public request starts a new trace.
   */
  trustIncomingContext?: boolean;
}
