import { loadCompose, interpolateDefaults } from './support/compose.js';
import { OVERLAYS, find, render, type K8sObject } from './support/kustomize.js';
import { knownServices, serviceEnv } from './support/env-schemas.js';
import { SERVICES, type ServiceInfo } from './support/repo.js';

// Variables of the image itself (deploy/docker/start.sh, healthcheck.mjs), not of a service's config schema.
const IMAGE_VARS = new Set(['SERVICE']);

/**
 * What a container must be given beyond what its schema requires: the defaults of these point at 127.0.0.1,
 * which inside a container is the container itself.
 */
function mustSet(info: ServiceInfo): string[] {
  const { required, keys } = serviceEnv(info.name);
  const container = ['REDIS_URL', info.portVar, keys.includes('HOST') ? 'HOST' : 'GATEWAY_HOST'];
  if (info.migrates) container.push('DATABASE_URL');
  return [...new Set([...required, ...container])].sort();
}

/** Required by the migration step: what every migrating service requires, and its database. */
function migrateMustSet(): string[] {
  return [
    ...new Set(SERVICES.filter((s) => s.migrates).flatMap((s) => [...serviceEnv(s.name).required, 'DATABASE_URL'])),
  ].sort();
}

const allKnownKeys = new Set(knownServices().flatMap((s) => serviceEnv(s).keys));

it('reads every service schema, and finds what the code requires (SECRETS_KEY wherever a secret is sealed or opened)', () => {
  expect(knownServices().sort()).toEqual(SERVICES.map((s) => s.name).sort());
  expect(serviceEnv('catalog').required).toEqual(['SECRETS_KEY']);
  expect(serviceEnv('webhook-dispatcher').required).toEqual(['SECRETS_KEY']);
  expect(serviceEnv('executor').required).toEqual(['SECRETS_KEY']);
  expect(serviceEnv('gateway').required).toEqual(expect.arrayContaining(['SECRETS_KEY']));
  expect(serviceEnv('executor').keys).toEqual(
    expect.arrayContaining(['EXECUTOR_SHUTDOWN_GRACE_MS', 'REDIS_URL', 'HOST']),
  );
});

describe('docker-compose.yml', () => {
  const compose = loadCompose();
  const envOf = (name: string): Record<string, string> =>
    Object.fromEntries(
      Object.entries(compose.services[name]?.environment ?? {}).map(([k, v]) => [
        k,
        interpolateDefaults(String(v ?? '')),
      ]),
    );

  it.each(SERVICES.map((s) => [s.name, s] as const))(
    '%s: every required variable is set (non-empty), and every one set is read',
    (name, info) => {
      const env = envOf(name);
      const missing = mustSet(info).filter((key) => !env[key]);
      expect(missing).toEqual([]);
      const unknown = Object.keys(env).filter((key) => !IMAGE_VARS.has(key) && !serviceEnv(name).keys.includes(key));
      expect(unknown).toEqual([]);
      expect(env[info.portVar]).toBe(String(info.port));
    },
  );

  it('the migration step has what every migration needs', () => {
    const env = envOf('migrate');
    expect(migrateMustSet().filter((key) => !env[key])).toEqual([]);
  });
});

describe.each(OVERLAYS)('k8s/overlays/%s', (overlay) => {
  let objects: K8sObject[];
  beforeAll(() => {
    objects = render(`k8s/overlays/${overlay}`);
  });

  type Container = {
    env?: { name: string; value?: string }[];
    envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
    ports?: { containerPort: number }[];
  };
  const containerOf = (o: K8sObject): Container =>
    (o.spec as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!;

  /** The variables a container gets (value, or '(secret)' for a Secret's key), as the kubelet would assemble them. */
  function environment(container: Container): Record<string, string> {
    const env: Record<string, string> = {};
    for (const source of container.envFrom ?? []) {
      if (source.configMapRef)
        Object.assign(env, find(objects, 'ConfigMap', source.configMapRef.name).data as Record<string, string>);
      if (source.secretRef) {
        const secret = find(objects, 'Secret', source.secretRef.name) as K8sObject & {
          data?: object;
          stringData?: object;
        };
        for (const key of Object.keys({ ...secret.data, ...secret.stringData })) env[key] = '(secret)';
      }
    }
    for (const { name, value } of container.env ?? []) env[name] = value ?? '';
    return env;
  }

  it.each(SERVICES.map((s) => [s.name, s] as const))(
    '%s: every required variable is set, and the port is the container port',
    (name, info) => {
      const container = containerOf(find(objects, 'Deployment', name));
      const env = environment(container);
      expect(mustSet(info).filter((key) => !env[key])).toEqual([]);
      expect(Number(env[info.portVar])).toBe(container.ports?.[0]?.containerPort);
      const unknown = (container.env ?? [])
        .map((e) => e.name)
        .filter((key) => !IMAGE_VARS.has(key) && !serviceEnv(name).keys.includes(key));
      expect(unknown).toEqual([]);
    },
  );

  it.each(SERVICES.filter((s) => s.migrates).map((s) => [s.name] as const))(
    "%s: the migrating init container has what the service's migration needs",
    (name) => {
      const pod = (find(objects, 'Deployment', name).spec as { template: { spec: { initContainers?: Container[] } } })
        .template.spec;
      const env = environment(pod.initContainers![0]!);
      expect([...serviceEnv(name).required, 'DATABASE_URL'].filter((key) => !env[key])).toEqual([]);
    },
  );

  it('the ConfigMap and the Secret hold only variables some service reads (no typos)', () => {
    const config = find(objects, 'ConfigMap', 'conduit-config') as K8sObject & { data: Record<string, string> };
    const secret = find(objects, 'Secret', 'conduit-secrets') as K8sObject & { stringData?: object; data?: object };
    const keys = [...Object.keys(config.data), ...Object.keys({ ...secret.data, ...secret.stringData })];
    expect(keys.filter((key) => !allKnownKeys.has(key))).toEqual([]);
  });
});
