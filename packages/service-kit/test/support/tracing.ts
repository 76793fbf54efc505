import { afterAll, beforeAll } from '@jest/globals';
import { context, propagation, trace } from '@opentelemetry/api';
import { NodeTracerProvider, SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-node';

/** Tracing on for the describe block it is called in (spans to `exporter`, if given), off again after it. */
export function useTracing(exporter?: SpanExporter): void {
  const provider = new NodeTracerProvider(exporter ? { spanProcessors: [new SimpleSpanProcessor(exporter)] } : {});
  beforeAll(() => provider.register());
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    context.disable();
    propagation.disable();
  });
}
