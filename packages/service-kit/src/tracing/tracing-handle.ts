/** A started tracing SDK: shutdown flushes and stops it; spans still buffered are sent first. */
export interface Tracing {
  shutdown(): Promise<void>;
}
