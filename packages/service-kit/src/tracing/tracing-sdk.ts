// Loaded only when tracing is on (start-tracing.ts): the SDK, exporter and instrumentations cost nothing otherwise.
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { Server, type IncomingMessage } from 'node:http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import type { Span } from '@opentelemetry/api';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  NodeTracerProvider,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-node';
import type { Tracing, TracingOptions } from './tracing-handle.js';

/** Probes and scrapes: a span per health check or metrics scrape would drown the traces of real requests. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/** Modules the instrumentations patch. An ESM import may have loaded them already; see patchLoaded. */
const INSTRUMENTED_MODULES = ['http', 'https', 'pg', 'ioredis'];

/** Span attribute values longer than this are cut, unless OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT says otherwise. */
const DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT = 1024;

export function startTracingSdk(service: string, options: TracingOptions, env: NodeJS.ProcessEnv): Tracing {
  const exporter: SpanExporter =
    env['OTEL_TRACES_EXPORTER']?.trim() === 'console' ? new ConsoleSpanExporter() : new OTLPTraceExporter();
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the service's own name.
  const resource = resourceFromAttributes({ 'service.name': service }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  // Sampler from OTEL_TRACES_SAMPLER (default: parent-based, always on); batching from OTEL_BSP_*.
  // A bound on every attribute value, so no span grows with the data it describes (the SDK's own default is none).
  const spanLimits = env['OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT']
    ? undefined
    : { attributeValueLengthLimit: DEFAULT_ATTRIBUTE_VALUE_LENGTH_LIMIT };
  const provider = new NodeTracerProvider({
    resource,
    spanLimits,
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  // Global tracer provider, W3C trace-context propagator and the AsyncLocalStorage context manager.
  provider.register();
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({ ignoreIncomingRequestHook: (req: IncomingMessage) => isUntraced(req.url) }),
      ...(options.instrumentPg === false ? [] : [new PgInstrumentation({ requestHook: redactStatement })]),
      // The command name only: BullMQ's scripts take whole job payloads (run reports, tenants' log lines) as arguments.
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  patchLoaded();
  if (options.trustIncomingContext === false) ignoreIncomingContext();
  return { shutdown: () => provider.shutdown() };
}

/** pg's statement text may hold literals (a tenant's values, a password in ALTER ROLE): keep its first word only. */
function redactStatement(span: Span, info: { query: { text: string } }): void {
  const operation = /^\s*([A-Za-z]+)/.exec(info.query.text)?.[1]?.toUpperCase() ?? 'QUERY';
  // Both spellings: the stable semantic conventions' and the older one (OTEL_SEMCONV_STABILITY_OPT_IN picks).
  span.setAttribute('db.query.text', operation);
  span.setAttribute('db.statement', operation);
}

/**
 * Drops the client's trace headers before the HTTP instrumentation reads them. Patched after the instrumentation,
 * so this wrapper runs first: the request's span becomes a root, and nothing the client sent travels further.
 */
function ignoreIncomingContext(): void {
  type Emit = (this: Server, event: string, ...args: unknown[]) => boolean;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the server as `this`
  const emit: Emit = Server.prototype.emit;
  const emitWithoutClientContext: Emit = function (this: Server, event, ...args) {
    if (event === 'request') {
      const headers = (args[0] as IncomingMessage).headers;
      delete headers['traceparent'];
      delete headers['tracestate'];
    }
    return emit.apply(this, [event, ...args]);
  };
  Server.prototype.emit = emitWithoutClientContext as typeof Server.prototype.emit;
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
