// Docker HEALTHCHECK: healthy when the service's /readyz answers 200 (its database and Redis answer), so compose's
// `condition: service_healthy` waits for a service that can really serve.
const service = process.env.SERVICE ?? '';
const portVar = `${service.toUpperCase().replace(/-/g, '_')}_PORT`;
const defaults = {
  gateway: 3000,
  catalog: 3101,
  scheduler: 3102,
  executor: 3103,
  monitoring: 3104,
  'webhook-dispatcher': 3105,
};
const port = process.env[portVar] ?? defaults[service];
try {
  const res = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2500) });
  process.exit(res.ok ? 0 : 1);
} catch {
  process.exit(1);
}
