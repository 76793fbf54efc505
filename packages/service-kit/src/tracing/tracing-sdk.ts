// Loaded only when tracing is on (start-tracing.ts): the SDK, exporter and instrumentations cost nothing otherwise.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import type { IncomingMessage } from 'node:http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import type { Tracing } from './tracing-handle.js';

/** Probes and scrapes: a span per health check or metrics scrape would drown the traces of real requests. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Modules the instrumentations patch. An ESM import may have loaded them already; see patchLoaded. */
const INSTRUMENTED_MODULES = ['http', 'https', 'pg', 'ioredis'];

export function startTracingSdk(service: string, env: NodeJS.ProcessEnv): Tracing {
  const exporter: SpanExporter =
    env['OTEL_TRACES_EXPORTER']?.trim() === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the service's own name.
  const resource = resourceFromAttributes({ 'service.name': service }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  // Sampler from OTEL_TRACES_SAMPLER (default: parent-based, always on); batching from OTEL_BSP_*.
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(exporter)] });
  // Global tracer provider, W3C trace-context propagator and the AsyncLocalStorage context manager.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req: IncomingMessage) => isUntraced(req.url) }),
      new PgInstrumentation(),
      new IORedisInstrumentation(),
    ],
  });
  patchLoaded();
  return { shutdown: () => provider.shutdown() };
}

function isUntraced(url: string | undefined): boolean {
  if (url === undefined) return false;
  const query = url.indexOf('?');
  return UNTRACED_PATHS.has(query < 0 ? url : url.slice(0, query));
}

/**
 * The instrumentations patch a module when it is next `require`d. Our services are ESM, and Node loads the CommonJS
 * packages a static import names before any code runs, so pg and ioredis are loaded by now: requiring them once
 * here has them patched (the patches are on their prototypes, so clients made later are traced).
 */
function patchLoaded(): void {
  const require = createRequire(import.meta.url);
  for (const name of INSTRUMENTED_MODULES) {
    try {
      require(name);
    } catch {
      // A service without pg (the executor) simply has nothing to patch.
    }
  }
  // `import { request } from 'node:http'` (the http connector) is bound to the original: re-bind it to the patch.
  syncBuiltinESMExports();
}
