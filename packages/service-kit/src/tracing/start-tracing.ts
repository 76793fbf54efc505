import type { Tracing, TracingOptions } from './tracing-handle.js';

/**
 * Whether the standard OTEL_* variables ask for traces: an OTLP endpoint, or an exporter named in
 * OTEL_TRACES_EXPORTER. `none` or OTEL_SDK_DISABLED=true turn tracing off whatever else is set.
 */
export function tracingRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  const exporter = env['OTEL_TRACES_EXPORTER']?.trim();
  if (exporter === 'none' || env['OTEL_SDK_DISABLED']?.trim() === 'true') return false;
  return Boolean(env['OTEL_EXPORTER_OTLP_ENDPOINT'] || env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] || exporter);
}

export type { Tracing, TracingOptions };

/**
 * Starts OpenTelemetry tracing for a service when the environment asks for it (see {@link tracingRequested}); call
 * it first in a service's start-up, before its database and Redis clients exist. Off, it loads nothing: the SDK is
 * imported only here, and the OpenTelemetry API our code calls stays a no-op.
 */
export async function startTracing(
  service: string,
  options: TracingOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<Tracing | null> {
  if (!tracingRequested(env)) return null;
  const { startTracingSdk } = await import('./tracing-sdk.js');
  return startTracingSdk(service, options, env);
}
