// The executor's slots must fit its pod: every run's memory within the container's limit and every run's share of
// the spill volume within that volume. The executor refuses to start otherwise (apps/executor/src/config.ts); these
// checks load each deployment's settings with that same code, so a manifest that would crash-loop fails here.
import { loadExecutorConfig } from '../../apps/executor/dist/config.js';
import { interpolateDefaults, loadCompose } from './support/compose.js';
import { OVERLAYS, find, render, type K8sObject } from './support/kustomize.js';

const TEST_KEY = { SECRETS_KEY: 'ab'.repeat(32) };

interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { resourceFieldRef?: { containerName?: string; resource: string } };
}
interface Container {
  name: string;
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string } }[];
  resources?: { limits?: Record<string, string> };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  containers: Container[];
  volumes?: { name: string; emptyDir?: { sizeLimit?: string } }[];
}

/** A Kubernetes quantity of bytes (`32Gi`, `512Mi`, `2G`, `1048576`) as a number. */
function quantityBytes(quantity: string): number {
  const match = /^(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(quantity);
  if (!match) throw new Error(`not a byte quantity: ${quantity}`);
  const factor: Record<string, number> = {
    Ki: 1024,
    Mi: 1024 ** 2,
    Gi: 1024 ** 3,
    Ti: 1024 ** 4,
    k: 1e3,
    M: 1e6,
    G: 1e9,
    T: 1e12,
  };
  return Number(match[1]) * (match[2] ? factor[match[2]]! : 1);
}

describe.each(OVERLAYS)("k8s/overlays/%s: the executor's runs fit its pod", (overlay) => {
  let objects: K8sObject[];
  let pod: PodSpec;
  let container: Container;
  beforeAll(() => {
    objects = render(`k8s/overlays/${overlay}`);
    pod = (find(objects, 'Deployment', 'executor').spec as { template: { spec: PodSpec } }).template.spec;
    container = pod.containers[0]!;
  });

  /** The environment the kubelet would give the container, with the downward API's value for its memory limit. */
  function environment(): Record<string, string> {
    const env: Record<string, string> = { ...TEST_KEY };
    for (const source of container.envFrom ?? [])
      if (source.configMapRef)
        Object.assign(env, find(objects, 'ConfigMap', source.configMapRef.name).data as Record<string, string>);
    for (const { name, value, valueFrom } of container.env ?? []) {
      const field = valueFrom?.resourceFieldRef;
      if (field?.resource === 'limits.memory' && field.containerName === container.name)
        env[name] = String(quantityBytes(container.resources!.limits!.memory!));
      else if (value !== undefined) env[name] = value;
    }
    return env;
  }

  it('EXECUTOR_MEMORY_LIMIT is the container memory limit (downward API) and the slots fit in it', () => {
    const fromLimit = container.env?.find((e) => e.name === 'EXECUTOR_MEMORY_LIMIT')?.valueFrom?.resourceFieldRef;
    expect(fromLimit).toEqual({ containerName: container.name, resource: 'limits.memory' });
    const config = loadExecutorConfig(environment());
    expect(config.EXECUTOR_MEMORY_LIMIT).toBe(quantityBytes(container.resources!.limits!.memory!));
    expect(config.EXECUTOR_CONCURRENCY).toBeGreaterThanOrEqual(8);
  });

  it("EXECUTOR_DATA_DIR_SIZE is the sizeLimit of the volume at EXECUTOR_DATA_DIR, and each run's scratch fits in it", () => {
    const config = loadExecutorConfig(environment());
    const mount = container.volumeMounts?.find((m) => m.mountPath === config.EXECUTOR_DATA_DIR);
    const volume = pod.volumes?.find((v) => v.name === mount?.name);
    expect(volume?.emptyDir?.sizeLimit).toEqual(expect.any(String));
    expect(config.EXECUTOR_DATA_DIR_SIZE).toBe(quantityBytes(volume!.emptyDir!.sizeLimit!));
    expect(config.EXECUTOR_CONCURRENCY * config.RUN_SCRATCH_LIMIT).toBeLessThanOrEqual(
      config.EXECUTOR_DATA_DIR_SIZE / 2,
    );
  });
});

it("prod's KEDA scaler absorbs one replica's slots per replica (listLength = EXECUTOR_CONCURRENCY)", () => {
  const objects = render('k8s/overlays/prod');
  const triggers = (
    find(objects, 'ScaledObject', 'executor').spec as { triggers: { type: string; metadata: Record<string, string> }[] }
  ).triggers;
  const listLength = Number(triggers.find((t) => t.type === 'redis')?.metadata.listLength);
  expect(listLength).toBe(loadExecutorConfig(TEST_KEY).EXECUTOR_CONCURRENCY);
});

it("docker-compose.yml: the executor's settings, with their defaults, load", () => {
  const compose = loadCompose();
  const env = Object.fromEntries(
    Object.entries(compose.services.executor?.environment ?? {}).map(([k, v]) => [
      k,
      interpolateDefaults(String(v ?? '')),
    ]),
  );
  const config = loadExecutorConfig({ ...env, ...TEST_KEY });
  expect(config.EXECUTOR_CONCURRENCY).toBe(loadExecutorConfig(TEST_KEY).EXECUTOR_CONCURRENCY);
});
