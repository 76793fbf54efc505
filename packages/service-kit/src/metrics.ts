import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * A registry of the service's own (not prom-client's global one, so tests and several apps in one
 * process do not collide), with Node's default metrics and a `service` label on every series.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}
